"""The lane for several optimizers kept through the optimizers' periodic updates
(Engine.multi_period) must be invisible: every record, finding (message and evidence), NaN
detection's state and the trained parameters are those of a run where no step is routine (a
token in Engine.every_step for the whole run and a Backward handler). Two optimizers (``model``
by ``opt_a``, ``head`` and a spare parameter no loss reads by ``opt_b``), 52 batches an epoch,
three epochs, so the periodic updates 64 and 128 fall inside an epoch."""

from __future__ import annotations

import pytest

from lrdoctor.runtime.engine import Engine
from lrdoctor.runtime.events import Backward
from tests.watch.test_multi_opt_lane import _full_snapshot

torch = pytest.importorskip("torch")

EPOCHS = 3
STEPS = EPOCHS * 52

# SETUP makes the schedulers; BATCH is one iteration, ``step`` counting from 1; ``nexts``
# records, at a few steps, which code DataLoader iterators' __next__ runs (the hook's or torch's)
LOOP = """
import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.dataloader import _BaseDataLoaderIter

torch.manual_seed(0)
data = TensorDataset(torch.randn(256, 8), torch.randn(256, 1))
loader = DataLoader(data, batch_size=5, shuffle=True)  # 52 batches, the last of one sample
model = torch.nn.Linear(8, 1)
head = torch.nn.Linear(8, 1)
spare = torch.nn.Parameter(torch.zeros(3))  # trained by opt_b, read by no loss
opt_a = torch.optim.SGD(model.parameters(), lr=0.05)
opt_b = torch.optim.Adam(list(head.parameters()) + [spare], lr=1e-3)
nexts = {}
SETUP
step = 0
for epoch in range(EPOCHS):
    for x, y in loader:
        step += 1
        nexts[step] = _BaseDataLoaderIter.__next__.__code__.co_name
        opt_a.zero_grad(); opt_b.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y) + torch.nn.functional.mse_loss(head(x), y)
        loss.backward()
BATCH
""".replace("EPOCHS", str(EPOCHS))

COSINES = ("sched_a = torch.optim.lr_scheduler.CosineAnnealingLR(opt_a, T_max=400)\n"
           "sched_b = torch.optim.lr_scheduler.CosineAnnealingLR(opt_b, T_max=400)")
UPDATES_THEN_STEPS = "opt_a.step(); opt_b.step(); sched_a.step(); sched_b.step()"


def _cosine_b(t_max: int) -> str:
    return ("sched_a = torch.optim.lr_scheduler.CosineAnnealingLR(opt_a, T_max=400)\n"
            f"sched_b = torch.optim.lr_scheduler.CosineAnnealingLR(opt_b, T_max={t_max})")


def _nan_into_spare(at: int) -> str:
    return UPDATES_THEN_STEPS + f"\nif step == {at}:\n    with torch.no_grad(): spare[1] = float('nan')"


# name -> (setup, one iteration, codes that must be found)
SCRIPTS: dict[str, tuple[str, str, set[str]]] = {
    "healthy": (COSINES, UPDATES_THEN_STEPS, set()),
    "each optimizer followed by its scheduler": (
        COSINES, "opt_a.step(); sched_a.step(); opt_b.step(); sched_b.step()", set()),
    "the schedulers first after both updates, second one first": (
        COSINES, "opt_a.step(); opt_b.step(); sched_b.step(); sched_a.step()", set()),
    "opt_b's scheduler between the updates": (
        COSINES, "opt_a.step(); sched_b.step(); opt_b.step(); sched_a.step()", set()),
    "no schedulers": ("pass", "opt_a.step(); opt_b.step()", set()),
    "one scheduler, on the second optimizer": (
        "sched_b = torch.optim.lr_scheduler.CosineAnnealingLR(opt_b, T_max=400)",
        "opt_a.step(); opt_b.step(); sched_b.step()", set()),
    "ExponentialLR pair (no horizon)": (
        "sched_a = torch.optim.lr_scheduler.ExponentialLR(opt_a, gamma=0.99)\n"
        "sched_b = torch.optim.lr_scheduler.ExponentialLR(opt_b, gamma=0.98)",
        UPDATES_THEN_STEPS, set()),
    "three optimizers": (
        COSINES + "\nthird = torch.nn.Linear(8, 1)\nopt_c = torch.optim.SGD(third.parameters(), lr=0.01)\n"
        "sched_c = torch.optim.lr_scheduler.CosineAnnealingLR(opt_c, T_max=300)",
        "opt_c.zero_grad(); torch.nn.functional.mse_loss(third(x), y).backward()\n"
        "opt_a.step(); opt_b.step(); opt_c.step(); sched_c.step(); sched_a.step(); sched_b.step()", set()),
    "a third optimizer that starts at step 20 (its periodic updates at other steps)": (
        COSINES + "\nthird = torch.nn.Linear(8, 1)\nopt_c = torch.optim.SGD(third.parameters(), lr=0.01)",
        "opt_a.step(); opt_b.step()\nif step >= 20:\n    opt_c.zero_grad()\n"
        "    torch.nn.functional.mse_loss(third(x), y).backward(); opt_c.step()\n"
        "sched_a.step(); sched_b.step()", set()),
    "opt_b starts at step 3 (the two periods apart)": (
        COSINES, "opt_a.step()\nif step >= 3: opt_b.step()\nsched_a.step()\nif step >= 3: sched_b.step()", set()),
    # horizons around the periodic update 128 (and 64)
    **{f"sched_b's horizon T_max={t}": (_cosine_b(t), UPDATES_THEN_STEPS, {"LRD010"})
       for t in (63, 64, 65, 127, 128, 129, 130)},
    # a NaN in a parameter only the periodic parameter check can see
    **{f"a NaN written into the spare parameter at step {at}": (COSINES, _nan_into_spare(at), {"LRD105"})
       for at in (60, 63, 100, 127)},
    "a NaN written into the spare parameter at step 64, after the periodic update": (
        COSINES, "opt_a.step(); opt_b.step()\nif step == 64:\n    with torch.no_grad(): spare[1] = float('nan')\n"
        "sched_a.step(); sched_b.step()", {"LRD105"}),
    "opt_b's LR written by hand before the periodic update 128": (
        COSINES, "if step == 128:\n    for g in opt_b.param_groups: g['lr'] = 0.5\n" + UPDATES_THEN_STEPS, {"LRD008"}),
    "opt_b's LR written by hand right after the periodic update 64": (
        COSINES, "opt_a.step(); opt_b.step()\nif step == 64:\n    for g in opt_b.param_groups: g['lr'] = 0.5\n"
        "sched_a.step(); sched_b.step()", set()),
    "opt_b's LR cut to 1e-9 of itself at its 127th scheduler step (late in the run: no LRD009)": (
        "sched_a = torch.optim.lr_scheduler.CosineAnnealingLR(opt_a, T_max=400)\n"
        "sched_b = torch.optim.lr_scheduler.MultiStepLR(opt_b, milestones=[127], gamma=1e-9)",
        UPDATES_THEN_STEPS, set()),
    "opt_b's LR cut to 1e-9 of itself at its 64th scheduler step (a collapse)": (
        "sched_a = torch.optim.lr_scheduler.CosineAnnealingLR(opt_a, T_max=400)\n"
        "sched_b = torch.optim.lr_scheduler.MultiStepLR(opt_b, milestones=[64], gamma=1e-9)",
        UPDATES_THEN_STEPS, {"LRD009"}),
    "LRD017: sched_b stepped twice per update from step 128": (
        COSINES, UPDATES_THEN_STEPS + "\nif step >= 128: sched_b.step()", {"LRD017"}),
    "LRD017: sched_b stepped twice per update from step 65": (
        COSINES, UPDATES_THEN_STEPS + "\nif step >= 65: sched_b.step()", {"LRD017"}),
    "LRD014: opt_b's periodic update 128 not made": (
        COSINES, "opt_a.step()\nif step != 128: opt_b.step()\nsched_a.step(); sched_b.step()", {"LRD014"}),
    "LRD014: opt_b stops after step 129": (
        COSINES, "opt_a.step()\nif step <= 129: opt_b.step()\nsched_a.step(); sched_b.step()", {"LRD014"}),
    "another loader's iterator made at step 70 (the hook back on)": (
        COSINES, UPDATES_THEN_STEPS + "\nif step == 70: spare_it = iter(DataLoader(data, batch_size=3))", set()),
    "another loader's batch between the updates at step 90 (while the hook is off)": (
        COSINES, "opt_a.step()\nif step == 90: next(iter(DataLoader(data, batch_size=3)))\n"
        "opt_b.step(); sched_a.step(); sched_b.step()", set()),
    "the schedulers stepped from a helper from step 65": (
        COSINES + "\ndef tick():\n    sched_a.step(); sched_b.step()",
        "opt_a.step(); opt_b.step()\nif step < 65: sched_a.step(); sched_b.step()\nelse: tick()", set()),
    "a scheduler made for opt_b at step 126": (
        COSINES, UPDATES_THEN_STEPS + "\nif step == 126: sched_b = torch.optim.lr_scheduler.CosineAnnealingLR("
        "opt_b, T_max=300)", set()),
}

# the steady scripts: the lane keeps the periodic updates, none of which reach on_attempt
STEADY = {"healthy", "each optimizer followed by its scheduler",
          "the schedulers first after both updates, second one first",
          "opt_b's scheduler between the updates", "no schedulers",
          "one scheduler, on the second optimizer", "ExponentialLR pair (no horizon)", "three optimizers"}


def _indent(text: str) -> str:
    return "\n".join("        " + line for line in text.splitlines())


def _script(name: str) -> str:
    setup, batch, _ = SCRIPTS[name]
    return LOOP.replace("SETUP", setup).replace("BATCH", _indent(batch))


def _params(ran) -> list:
    mods = [ran.ns["model"], ran.ns["head"]] + ([ran.ns["third"]] if "third" in ran.ns else [])
    return [p.detach().clone() for m in mods for p in m.parameters()] + [ran.ns["spare"].detach().clone()]


def _general_updates(monkeypatch) -> list[tuple[str, int]]:
    """(optimizer label, its update's number) of each update that reaches Engine.on_attempt."""
    seen: list[tuple[str, int]] = []
    on_attempt = Engine.on_attempt

    def counting(self, opt, *args, **kwargs):
        on_attempt(self, opt, *args, **kwargs)
        info = self.optimizers[id(opt)]
        seen.append((info.label, info.attempts))

    monkeypatch.setattr(Engine, "on_attempt", counting)
    return seen


def _nothing_routine(monkeypatch) -> None:
    init = Engine.__init__

    def nothing_routine(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.every_step.add("every step")  # no step is routine
        self.subscribe(Backward, lambda ev: None)  # no backward() is routine

    monkeypatch.setattr(Engine, "__init__", nothing_routine)


def _same(fast, slow) -> None:
    assert _full_snapshot(fast.watch) == _full_snapshot(slow.watch)
    for a, b in zip(_params(fast), _params(slow), strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=0, equal_nan=True)  # bit for bit


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_the_lane_kept_through_periodic_updates_keeps_every_record(name, run_script, monkeypatch):
    # (counted in the steady scripts only: the counting frame would stand for the user's line
    # where a check looks for it on the general path)
    general = _general_updates(monkeypatch) if name in STEADY else []
    fast = run_script(_script(name))
    fast_general = list(general)
    _nothing_routine(monkeypatch)
    slow = run_script(_script(name))
    _same(fast, slow)
    assert SCRIPTS[name][2] <= {f.code for f in fast.watch.findings}, fast.watch.report()
    if name in STEADY:
        # the periodic updates 64 and 128 were the lane's (on the base: the general path's)
        assert not [u for u in fast_general if u[1] in (64, 128)], fast_general


def test_no_periodic_update_takes_the_general_path(run_script, monkeypatch):
    """In the healthy run each epoch's updates reach on_attempt only until the lane opens (the
    first cycles of the epoch): the periodic updates 64 and 128 and the steps around them are
    kept by the lane. NaN detection checked both optimizers' parameters last at 128, from the
    lane, and DataLoader's ``__next__`` runs torch's own code from the step after the kept
    periodic update 64 to the end of its epoch (104) and after 128 to the run's end."""
    general = _general_updates(monkeypatch)
    ran = run_script(_script("healthy"))
    eng = ran.watch.engine
    assert all(o.attempts == STEPS for o in eng.optimizers.values())
    numbers = sorted({n for _, n in general})
    assert numbers and max(n for n in numbers if n <= 52) < 20, numbers
    assert not [n for n in numbers if 60 <= n <= 104 or 120 <= n], numbers
    assert sorted(eng.loss_gate.last_checked.values()) == [128, 128]
    nexts = ran.ns["nexts"]
    assert {nexts[s] for s in range(65, 105)} == {"__next__"}, nexts
    assert {nexts[s] for s in range(129, STEPS + 1)} == {"__next__"}, nexts
    assert nexts[64] == "_next_hooked" and nexts[105] == "_next_hooked"
    # (T_max=400 over 156 steps: a schedule far from complete, both ways)
    assert {f.code for f in ran.watch.findings} == {"LRD011"}, ran.watch.report()


def test_the_periodic_check_kept_by_the_lane_finds_a_nan(run_script, monkeypatch):
    """A NaN written into a parameter no loss reads, at step 100, is found by the parameter
    check of opt_b's periodic update 128, which the lane keeps: LRD105 names the steps
    between the two checks and the parameter."""
    general = _general_updates(monkeypatch)
    ran = run_script(_script("a NaN written into the spare parameter at step 100"))
    assert not [u for u in general if u[1] == 128], general
    [finding] = [f for f in ran.watch.findings if f.code == "LRD105"]
    assert "between 65 and 128" in finding.message, finding.message
    assert finding.evidence["step"] == 128, finding.evidence


@pytest.mark.parametrize("options", [{"checks": ()}, {"nan_check": False}], ids=["no checks", "no NaN check"])
@pytest.mark.parametrize("name", ["healthy", "opt_b's scheduler between the updates",
                                  "LRD014: opt_b's periodic update 128 not made",
                                  "a third optimizer that starts at step 20 (its periodic updates at other steps)"])
def test_the_lane_kept_through_periodic_updates_with_fewer_checks(name, options, run_script, monkeypatch):
    fast = run_script(_script(name), **options)
    init = Engine.__init__

    def nothing_routine(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.every_step.add("every step")

    monkeypatch.setattr(Engine, "__init__", nothing_routine)
    slow = run_script(_script(name), **options)
    _same(fast, slow)
