"""False alarms of fphunt33's whole-repository hunt (bench/realcode/FPHUNT.md), by shape.

Programs written for these tests; no third-party code.

1. A project class that holds its scheduler in an attribute, the class picked by a nested
   ``if`` (``if decay > 0: (if kind == 1: StepLR elif ...: MultiStepLR) else: None``), and
   restores, steps and saves it through methods of its own: after the outer ``if`` the
   attribute holds the choice made on the branch that built it (None has nothing to track),
   as a single scheduler built there already did, so the wrapper's ``load()`` restores it
   (LRD007 said it never was: the ``else``'s None replaced the choice). A resume that never
   calls the wrapper's ``load()`` is still reported.
2. A resume that hands values read back from the checkpoint to a method of the project's
   scheduler (``scheduler.setstate({"epoch": ckpt["epoch"], "iters": ckpt["iters"]})``) puts
   that scheduler back at the saved position by a route of its own (LRD007 said it was never
   restored). The same method given a literal and a setting is still reported.
3. A program (a test) that runs the training function several times (a smoke run, a first
   run, a resumed run): a GradScaler built in the smoke run's one-batch helper is not a scaler
   the later runs' checkpoints leave out (LRD007 said it was: the runs are separate calls of
   the function, written at separate places). A scaler the training function builds itself,
   used across its epochs, is still reported when its checkpoint leaves it out.
4. A scheduler built on a project class that wraps a library's sharded optimizer (its
   optimizer unknown to lrdoctor), stepped right after ``self.optimizer.step()``, with a second
   (prompt-tuning) torch optimizer stepped later in the same pass: the update the scheduler
   follows is its own optimizer's, which lrdoctor could not model, not the second optimizer's
   (LRD001 said the step came before an update). The scheduler stepped before its own
   optimizer is still reported.

Each has a control that must still be reported.
"""

from __future__ import annotations

from .helpers import codes, messages

# -- 1. a scheduler choice held by a wrapper, None on the other branch -----------------------

WRAPPED_CHOICE = """
import torch


class LRPolicy:
    def __init__(self, optimizer, cfg):
        if cfg.decay > 0:
            if cfg.kind == 1:
                self.sched = torch.optim.lr_scheduler.StepLR(optimizer, step_size=5, gamma=cfg.decay)
            elif cfg.kind == 2:
                self.sched = torch.optim.lr_scheduler.MultiStepLR(optimizer, [30, 60], gamma=cfg.decay)
            else:
                self.sched = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg.epochs)
            self.active = True
        else:
            self.sched = None
            self.active = False

    def on(self):
        return self.active

    def load(self, state):
        if self.on():
            self.sched.load_state_dict(state)

    def state(self):
        if self.on():
            return self.sched.state_dict()
        return None

    def advance(self):
        if self.on():
            self.sched.step()


class Optim:
    def __init__(self, model, cfg):
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.policy = LRPolicy(self.optimizer, cfg)


def resume(ckpt, model, optimizer, policy):
    model.load_state_dict(ckpt["weights"])
    optimizer.load_state_dict(ckpt["optimizer"])
    if "lr" in ckpt and policy.on():
        RESTORE


def train(cfg, model, loader):
    holder = Optim(model, cfg)
    optimizer = holder.optimizer
    policy = holder.policy
    if cfg.resume:
        resume(torch.load(cfg.resume), model, optimizer, policy)
    for epoch in range(cfg.epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss = (model(x) - y).pow(2).mean()
            loss.backward()
            optimizer.step()
        policy.advance()
        torch.save({"weights": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "lr": policy.state()}, "last.pt")
"""


def test_a_wrapper_restores_the_scheduler_it_chose_in_a_nested_if() -> None:
    assert codes(WRAPPED_CHOICE.replace("RESTORE", 'policy.load(ckpt["lr"])')) == []


def test_control_a_resume_that_skips_the_wrapper_restore_is_still_reported() -> None:
    found = messages(WRAPPED_CHOICE.replace("RESTORE", "pass"))
    assert any("restores the optimizer" in m and "never restored" in m for m in found)


# -- 2. a project scheduler repositioned from the checkpoint by a method of its own ----------

REPOSITIONED = """
import torch

from segkit import build_scheduler


def main(cfg, model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr, momentum=0.9)
    scheduler = build_scheduler(optimizer=optimizer, cfg=cfg)
    start_epoch = 1
    if cfg.resume:
        ckpt = torch.load(cfg.resume)
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        start_epoch = ckpt["epoch"] + 1
        scheduler.setstate(POSITION)
    for epoch in range(start_epoch, cfg.epochs + 1):
        for x, y in loader:
            scheduler.update_lr()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            scheduler.step()
        state = scheduler.state()
        state["model"] = model.state_dict()
        torch.save(state, "last.pth")
"""


def test_a_scheduler_handed_the_saved_position_is_restored() -> None:
    position = '{"epoch": ckpt["epoch"], "iters": ckpt.get("iters", 0)}'
    assert codes(REPOSITIONED.replace("POSITION", position)) == []


def test_control_a_scheduler_handed_a_fresh_position_is_still_reported() -> None:
    position = '{"epoch": 0, "iters": cfg.warmup_iters}'
    assert codes(REPOSITIONED.replace("POSITION", position)) == ["LRD007"]


# -- 3. a scaler of another run of the same training function --------------------------------

RUNS = """
import torch


def one_epoch(model, loader, optimizer, amp, given):
    scaler = SCALER
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", enabled=amp):
            loss = torch.nn.functional.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()


def one_batch(model, loader, optimizer, amp):
    x, y = next(iter(loader))
    scaler = torch.amp.GradScaler("cuda", enabled=amp)
    with torch.autocast("cuda", enabled=amp):
        loss = torch.nn.functional.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()


def fit(cfg, model, loader, smoke=False, resume=None):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    if smoke:
        one_batch(model, loader, optimizer, cfg.amp)
        return None
    shared = torch.amp.GradScaler("cuda", enabled=cfg.amp)
    start = 1
    if resume is not None:
        ckpt = torch.load(resume)
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        start = ckpt["epoch"] + 1
    for epoch in range(start, cfg.epochs + 1):
        one_epoch(model, loader, optimizer, cfg.amp, shared)
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "epoch": epoch}, "last.pt")
    return "last.pt"


def test_workflow(cfg, model, loader):
    fit(cfg, model, loader, smoke=True)
    last = fit(cfg, model, loader)
    fit(cfg, model, loader, resume=last)
"""


def test_a_scaler_of_another_run_is_not_left_out() -> None:
    # each epoch makes its own scaler; the only other one is the smoke run's
    assert codes(RUNS.replace("SCALER", 'torch.amp.GradScaler("cuda", enabled=amp)')) == []


def test_control_the_runs_own_scaler_is_still_left_out() -> None:
    assert codes(RUNS.replace("SCALER", "given")) == ["LRD007"]


# -- 4. an update lrdoctor cannot model, right before the step -------------------------------

TWO_OPTIMIZERS = """
import torch
from shardlib import ZeroOptimizer


class ShardedAdam(ZeroOptimizer):
    def __init__(self, model, params, **defaults):
        super().__init__(torch.optim.Adam(params), model, **defaults)


class Tuner:
    def __init__(self, cfg, model, prompt):
        self.cfg = cfg
        self.model = model
        self.optimizer = ShardedAdam(model, model.parameters(), initial_scale=32)
        self.lr_scheduler = torch.optim.lr_scheduler.OneCycleLR(
            self.optimizer, max_lr=cfg.lr, total_steps=cfg.steps)
        self.optimizer_pt = torch.optim.AdamW([prompt], lr=cfg.lr_pt)
        self.lr_scheduler_pt = torch.optim.lr_scheduler.OneCycleLR(
            self.optimizer_pt, max_lr=cfg.lr_pt, total_steps=cfg.steps)

    def train_one_step(self, x):
        loss = self.model(x).mean()
        self.optimizer.backward(loss)
        ORDER
        self.optimizer.zero_grad()
        self.optimizer_pt.step()
        self.lr_scheduler_pt.step()
        self.optimizer_pt.zero_grad()

    def train(self, loader):
        for epoch in range(self.cfg.epochs):
            for x in loader:
                self.train_one_step(x)
"""


def test_a_step_after_an_update_lrdoctor_cannot_model_is_in_order() -> None:
    order = "self.optimizer.step()\n        self.lr_scheduler.step()"
    assert codes(TWO_OPTIMIZERS.replace("ORDER", order)) == []


def test_control_a_step_before_its_own_optimizer_is_still_reported() -> None:
    order = "self.lr_scheduler.step()\n        self.optimizer.step()"
    assert codes(TWO_OPTIMIZERS.replace("ORDER", order)) == ["LRD001"]
