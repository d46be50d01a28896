"""LRD007 at run time: a checkpoint saved without the scheduler's (or the GradScaler's) state,
and a resume that restores a trained optimizer while its scheduler starts from scratch. Each
script is run twice where it matters: the first run saves, the second resumes from the file."""

from __future__ import annotations

import runpy
import sys
import textwrap
from pathlib import Path

import pytest

import lrdoctor

torch = pytest.importorskip("torch")


class Ran:
    def __init__(self, watch, ns, source: str) -> None:
        self.watch, self.ns, self.source = watch, ns, source

    @property
    def codes(self) -> list[str]:
        return sorted(f.code for f in self.watch.findings)

    def only(self, code: str):
        hits = [f for f in self.watch.findings if f.code == code]
        assert len(hits) == 1, self.watch.report()
        return hits[0]

    def line_of(self, text: str) -> int:
        (hit,) = [i + 1 for i, line in enumerate(self.source.splitlines()) if text in line]
        return hit


@pytest.fixture
def run(tmp_path: Path, monkeypatch):
    """``run(source)``: write train.py in a fresh folder and run it there, watched."""
    monkeypatch.chdir(tmp_path)

    def go(source: str, watched: bool = True) -> Ran:
        source = textwrap.dedent(source)
        path = tmp_path / "train.py"
        path.write_text(source)
        monkeypatch.setattr(sys, "argv", [str(path)])
        messages: list[str] = []
        w = lrdoctor.watch(echo=messages.append)
        if not watched:
            return Ran(None, runpy.run_path(str(path), run_name="__main__"), source)
        with w:
            ns = runpy.run_path(str(path), run_name="__main__")
        assert not any("internal error" in m for m in messages), messages
        return Ran(w, ns, source)

    return go


TRAIN = """
import os
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda epoch: 0.5 ** epoch)
start = 0
if os.path.exists("last.pt"):
    ckpt = torch.load("last.pt")
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    {restore}
    start = ckpt["epoch"] + 1
for epoch in range(start, start + 2):
    for _ in range(3):
        optimizer.zero_grad()
        model(torch.randn(8, 4)).pow(2).mean().backward()
        optimizer.step()
    scheduler.step()
    {save}
lr = optimizer.param_groups[0]["lr"]
"""

SAVE_ALL = ('torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), '
            '"scheduler": scheduler.state_dict(), "epoch": epoch}, "last.pt")')
SAVE_NO_SCHEDULER = ('torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), '
                     '"epoch": epoch}, "last.pt")')


def train(save: str = SAVE_ALL, restore: str = 'scheduler.load_state_dict(ckpt["scheduler"])') -> str:
    return TRAIN.replace("{save}", save).replace("{restore}", restore)


def test_save_without_scheduler_state_is_reported_at_the_save(run):
    ran = run(train(save=SAVE_NO_SCHEDULER))
    f = ran.only("LRD007")
    assert ran.codes == ["LRD007"]
    assert f.location.line == ran.line_of("torch.save(")
    assert f.severity == "warning"
    assert "AdamW's state after 3 steps but not LambdaLR()'s (last_epoch 1)" in f.message
    assert "LR back to 0.01 from 0.005" in f.message


def test_resume_without_scheduler_state_is_reported_at_the_load(run):
    run(train(save=SAVE_NO_SCHEDULER))
    ran = run(train(save=SAVE_NO_SCHEDULER, restore="pass"))
    resumes = [f for f in ran.watch.findings if "load_state_dict" in f.message]
    assert len(resumes) == 1, ran.watch.report()
    f = resumes[0]
    assert f.location.line == ran.line_of('optimizer.load_state_dict(ckpt["optimizer"])')
    assert "restored AdamW trained for 6 steps, but LambdaLR() was never loaded" in f.message
    # the resumed run restarted the decay: epoch 3 and 4 trained at 0.01 and 0.005, not 0.0025...
    assert ran.ns["lr"] == 0.0025


def test_complete_save_and_resume_are_silent(run):
    first = run(train())
    second = run(train())
    assert first.codes == [] and second.codes == [], second.watch.report()
    assert second.ns["lr"] == 0.01 * 0.5 ** 4  # the schedule went on where it stopped


def test_watching_a_checkpointing_run_changes_nothing_and_is_undone(run, tmp_path):
    save_fn, opt_sd, load_sd = torch.save, torch.optim.Optimizer.state_dict, torch.optim.Optimizer.load_state_dict
    sched_sd = torch.optim.lr_scheduler.LambdaLR.state_dict
    source = train(save=SAVE_NO_SCHEDULER, restore="pass")
    results = {}
    for watched in (False, True):
        (tmp_path / "last.pt").unlink(missing_ok=True)
        first = run(source, watched=watched)  # saves
        saved = (tmp_path / "last.pt").read_bytes()
        second = run(source, watched=watched)  # resumes from the file, saves again
        results[watched] = (saved, [p.detach().clone() for p in first.ns["model"].parameters()],
                            [p.detach().clone() for p in second.ns["model"].parameters()], second.ns["lr"])
        if watched:
            assert first.codes == ["LRD007"] and second.codes == ["LRD007", "LRD007"]
    plain, watched = results[False], results[True]
    assert watched[0] == plain[0]  # the same bytes saved
    for a, b in zip(plain[1] + plain[2], watched[1] + watched[2]):
        assert torch.equal(a, b)
    assert watched[3] == plain[3]
    assert torch.save is save_fn and torch.serialization.save is save_fn
    assert torch.optim.Optimizer.state_dict is opt_sd and torch.optim.Optimizer.load_state_dict is load_sd
    assert torch.optim.lr_scheduler.LambdaLR.state_dict is sched_sd
    assert torch.optim.lr_scheduler.LRScheduler.__init__.__module__ == "torch.optim.lr_scheduler"


def test_scheduler_under_any_key_in_any_nesting_is_found(run):
    ran = run(train(save="""
    from dataclasses import dataclass, field
    @dataclass
    class State:
        parts: list = field(default_factory=list)
    torch.save({"trainer": State([{"opt": optimizer.state_dict()}, ("x", scheduler.state_dict())])}, "last.pt")
    """.replace("\n    ", "\n    ")))
    assert ran.codes == [], ran.watch.report()


def test_optimizer_in_a_dataclass_without_scheduler_is_reported(run):
    ran = run(train(save="""
    from dataclasses import dataclass
    @dataclass
    class State:
        model: dict
        optim: dict
    torch.save(State(model.state_dict(), optimizer.state_dict()), "last.pt")
    """))
    assert ran.codes == ["LRD007"]


def test_checkpoint_written_as_several_files_is_judged_as_a_whole(run):
    # as Hugging Face's Trainer writes one: optimizer.pt, scheduler.pt, one torch.save each
    ran = run(train(save="""
    torch.save(optimizer.state_dict(), "optimizer.pt")
    torch.save(scheduler.state_dict(), "scheduler.pt")
    torch.save(model.state_dict(), "model.pt")
    """))
    assert ran.codes == [], ran.watch.report()


def test_copied_scheduler_state_counts_as_the_scheduler(run):
    ran = run(train(save="""
    import copy
    torch.save({"opt": optimizer.state_dict(), "sched": copy.deepcopy(scheduler.state_dict())}, "last.pt")
    """))
    assert ran.codes == [], ran.watch.report()


@pytest.mark.parametrize("save", [
    'torch.save(model.state_dict(), "weights.pt")',  # weights only
    'torch.save({"model": model, "epoch": epoch}, "model.pt")',
])
def test_saves_without_optimizer_state_are_silent(run, save):
    assert run(train(save=save)).codes == []


def test_optimizer_without_scheduler_is_silent(run):
    ran = run("""
    import torch
    model = torch.nn.Linear(4, 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(4):
        optimizer.zero_grad(); model(torch.randn(8, 4)).sum().backward(); optimizer.step()
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, "last.pt")
    """)
    assert ran.codes == []


def test_reduce_lr_on_plateau_left_out_is_silent(run):
    # its reductions live in the optimizer's param groups, which the optimizer's state restores
    ran = run("""
    import torch
    model = torch.nn.Linear(4, 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=0)
    for epoch in range(3):
        optimizer.zero_grad(); model(torch.randn(8, 4)).sum().backward(); optimizer.step()
        plateau.step(1.0)
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, "last.pt")
    """)
    assert ran.codes == []


PLATEAU_RESUME = """
import os
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=2)
if os.path.exists("last.pt"):
    ckpt = torch.load("last.pt")
    optimizer.load_state_dict(ckpt["optimizer"])
    {restore}
for epoch in range(3):
    optimizer.zero_grad(); model(torch.randn(8, 4)).sum().backward(); optimizer.step()
    plateau.step(1.0)
    torch.save({{"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                {saved}}}, "last.pt")
"""


def test_reduce_lr_on_plateau_never_loaded_on_resume_is_an_info(run):
    # the LR it reached comes back with the optimizer; its best metric and patience count
    # do not: an info (fixes11), at the optimizer's load, never a warning
    source = PLATEAU_RESUME.format(restore="pass", saved="")
    assert run(source).codes == []
    ran = run(source)
    hit = ran.only("LRD007")
    assert hit.severity == "info", ran.watch.report()
    assert "best metric and patience count restarted" in hit.message
    assert "patience (2)" in hit.message
    assert hit.location.line == ran.line_of('optimizer.load_state_dict(ckpt["optimizer"])')


def test_reduce_lr_on_plateau_loaded_on_resume_is_silent(run):
    source = PLATEAU_RESUME.format(restore='plateau.load_state_dict(ckpt["plateau"])',
                                   saved='"plateau": plateau.state_dict()')
    run(source)
    assert run(source).codes == []


def test_scheduler_rebuilt_at_its_position_on_resume_is_silent(run):
    # the schedule is a function of the restored epoch counter: nothing to save
    source = train(save=SAVE_NO_SCHEDULER, restore="pass").replace(
        "scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)\n", "").replace(
        "for epoch in range(start",
        "scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5, last_epoch=start - 1)\n"
        "for epoch in range(start")
    first = run(source)
    second = run(source)
    assert "LRD007" not in first.codes + second.codes, second.watch.report()


def test_scheduler_positioned_by_fast_forward_steps_on_resume_is_silent(run):
    run(train(save=SAVE_NO_SCHEDULER))
    ran = run(train(save=SAVE_NO_SCHEDULER, restore="""for _ in range(ckpt["epoch"] + 1):
        scheduler.step()"""))
    assert [f for f in ran.watch.findings if "load_state_dict" in f.message] == []


def test_save_before_the_scheduler_ever_stepped_is_silent(run):
    ran = run("""
    import torch
    model = torch.nn.Linear(4, 1)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=10)
    for step in range(3):  # checkpoints inside the first epoch: the scheduler is still fresh
        optimizer.zero_grad(); model(torch.randn(8, 4)).sum().backward(); optimizer.step()
        torch.save({"optimizer": optimizer.state_dict()}, "last.pt")
    scheduler.step()
    """)
    assert "LRD007" not in ran.codes


AMP = """
import torch
torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1, total_iters=4)
scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)
for step in range(3):
    optimizer.zero_grad()
    scaler.scale(model(torch.randn(8, 4)).pow(2).mean()).backward()
    scaler.step(optimizer)
    scaler.update()
    scheduler.step()
    torch.save({"optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(), {extra}}, "last.pt")
"""


def test_gradscaler_in_use_left_out_of_the_checkpoint_is_reported(run):
    ran = run(AMP.replace("{extra}", ""))
    f = ran.only("LRD007")
    assert "the GradScaler's (scale 1024)" in f.message and "LinearLR" not in f.message
    assert f.location.line == ran.line_of("torch.save(")


def test_gradscaler_saved_with_the_rest_is_silent(run):
    assert run(AMP.replace("{extra}", '"scaler": scaler.state_dict()')).codes == []


AMP_RESUME = """
import os
import torch
torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1, total_iters=8)
scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)
if os.path.exists("last.pt"):
    ckpt = torch.load("last.pt")
    optimizer.load_state_dict(ckpt["optimizer"])
    scheduler.load_state_dict(ckpt["scheduler"])
    {restore}
for step in range(3):
    optimizer.zero_grad()
    scaler.scale(model(torch.randn(8, 4)).pow(2).mean()).backward()
    scaler.step(optimizer)
    scaler.update()
    scheduler.step()
torch.save({"optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(),
            "scaler": scaler.state_dict()}, "last.pt")
"""


def test_resume_with_a_fresh_gradscaler_is_reported_at_the_load(run):
    assert run(AMP_RESUME.replace("{restore}", "pass")).codes == []  # the first run saves all
    ran = run(AMP_RESUME.replace("{restore}", "pass"))
    f = ran.only("LRD007")
    assert f.location.line == ran.line_of('optimizer.load_state_dict(ckpt["optimizer"])')
    assert "restored AdamW trained for 3 steps, but the GradScaler was never loaded" in f.message
    assert "initial scale (1024)" in f.message


def test_resume_that_loads_the_gradscaler_is_silent(run):
    run(AMP_RESUME.replace("{restore}", "pass"))
    ran = run(AMP_RESUME.replace("{restore}", 'scaler.load_state_dict(ckpt["scaler"])'))
    assert ran.codes == [], ran.watch.report()


def test_resume_without_amp_has_no_scaler_finding(run):
    plain = AMP_RESUME.replace('torch.amp.GradScaler("cpu", init_scale=1024.0)',
                               'torch.amp.GradScaler("cpu", enabled=False)')
    run(plain.replace("{restore}", "pass"))
    ran = run(plain.replace("{restore}", "pass"))
    assert ran.codes == [], ran.watch.report()


# What the resume does depends on the class: PyTorch's chainable schedulers scale the LR that
# comes back with the optimizer (tests/test_resume_effects.py checks each against torch).
LAMBDA = "torch.optim.lr_scheduler.LambdaLR(optimizer, lambda epoch: 0.5 ** epoch)"


def with_scheduler(built: str, **kw: str) -> str:
    return train(**kw).replace(LAMBDA, built)


def test_steplr_lost_says_the_lr_comes_back_and_decays_come_late(run):
    steplr = "torch.optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.5)"
    saved = run(with_scheduler(steplr, save=SAVE_NO_SCHEDULER))
    f = saved.only("LRD007")
    assert "LR back to" not in f.message and "first value" not in f.message
    assert "StepLR's step count restarts at 0" in f.message
    assert "`step_size` (`3`) steps late" in f.message
    resumed = run(with_scheduler(steplr, save=SAVE_NO_SCHEDULER, restore="pass"))
    (g,) = [f for f in resumed.watch.findings if "load_state_dict" in f.message]
    assert "first value" not in g.message and "steps late" in g.message


def test_cosine_lost_says_a_new_cosine_starts_from_the_restored_lr(run):
    cosine = "torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=4)"
    run(with_scheduler(cosine, save=SAVE_NO_SCHEDULER))
    resumed = run(with_scheduler(cosine, save=SAVE_NO_SCHEDULER, restore="pass"))
    (g,) = [f for f in resumed.watch.findings if "load_state_dict" in f.message]
    assert "new cosine from that LR" in g.message and "`T_max` (`4`)" in g.message


def test_exponential_lost_moves_nothing_and_is_silent(run):
    exponential = "torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.5)"
    first = run(with_scheduler(exponential, save=SAVE_NO_SCHEDULER))
    second = run(with_scheduler(exponential, save=SAVE_NO_SCHEDULER, restore="pass"))
    assert first.codes == [] and second.codes == [], second.watch.report()
    assert second.ns["lr"] == pytest.approx(0.01 * 0.5 ** 4)  # went on exactly


def test_a_subclass_of_a_chainable_scheduler_keeps_the_general_wording(run):
    # a subclass may compute its LR differently: only torch's own classes are read by name
    sub = ("type('MyStep', (torch.optim.lr_scheduler.StepLR,), {})(optimizer, step_size=3, "
           "gamma=0.5)")
    run(with_scheduler(sub, save=SAVE_NO_SCHEDULER))
    resumed = run(with_scheduler(sub, save=SAVE_NO_SCHEDULER, restore="pass"))
    (g,) = [f for f in resumed.watch.findings if "load_state_dict" in f.message]
    assert "from its first value" in g.message
