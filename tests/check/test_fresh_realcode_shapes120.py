"""Shapes met in the fresh-2026-12zzs118 batch of real code (issue 7), written in our own words.

The batch drew hand-written loops that accumulate gradients over micro-batches and step a
scheduler (``loss / accum``, ``(i + 1) % accum == 0``, ``accelerator.accumulate``,
``no_sync``, GradScaler with accumulation). lrdoctor found every labelled code at first sight;
one case placed findings on dead code, and probing the family found a false alarm beside it.

- A segmentation trainer wraps its own polynomial decay (a subclass of torch's scheduler base)
  in a hand-written warm-up wrapper, stepped every batch after ``scaler.step(optimizer)``.
  The wrapper's ``step()`` takes the plateau path only ``if type(self.after_scheduler) ==
  ReduceLROnPlateau`` (spelled ``!=`` with the other path in the ``else``); that path's
  ``self.after_scheduler.step(metrics, ...)`` was reported as a step on skipped updates
  (LRD005) beside the live hand-over, because a class test on an instance of the project's own
  scheduler class was left undecided. An instance of a project class is an instance of a
  torch class only when that class is among its ancestors, and never exactly of one: the
  class test is now decided for it (isinstance and ``type(x) ==``/``!=`` alike), so the dead
  branch is not traced.
- The same decision removes a false LRD006 on ``if isinstance(sched, ReduceLROnPlateau):
  sched.step(val_loss)`` where ``sched`` is the project's own warm-up cosine class.
- A project subclass of torch's ReduceLROnPlateau that keeps its step() was judged as one
  that keeps the epoch-counting step() of the other schedulers, so ``sched.step(val_loss)``
  read as a deprecated epoch argument (a false LRD006). Its step() is the plateau's.

The rest are the theme's spellings kept as regression probes: a scheduler stepped outside the
accumulation test (per micro-batch) and its correct twins (inside the test, after a
``continue`` on non-boundary batches, under a ``did_step`` flag or a helper that returns
whether it stepped, under ``sync_gradients``, a last-batch flush), accumulation written as an
inner micro-step loop, ``no_sync`` contexts, an epoch-sized StepLR stepped per update, helpers
and hook classes that step the scheduler on every call, and an Accelerate scheduler left out
of ``prepare()`` inside ``accumulate()``.
"""

from __future__ import annotations

from tests.check.helpers import codes, findings, messages

# -- a class test on the project's own scheduler class is decided ---------------------------

_WRAPPER = """
import torch
from torch.optim.lr_scheduler import _LRScheduler, ReduceLROnPlateau


class PolyDecay(_LRScheduler):
    def __init__(self, optimizer, max_steps, power=1.0):
        self.max_steps = max_steps
        self.power = power
        super().__init__(optimizer)

    def get_lr(self):
        frac = min(self.last_epoch, self.max_steps) / self.max_steps
        return [base * (1 - frac) ** self.power for base in self.base_lrs]


class Warmup(_LRScheduler):
    def __init__(self, optimizer, warmup, after=None):
        self.warmup = warmup
        self.after = after
        self.done = False
        super().__init__(optimizer)

    def get_lr(self):
        if self.last_epoch > self.warmup:
            self.done = True
            return self.after.get_last_lr()
        return [base * self.last_epoch / self.warmup for base in self.base_lrs]

    def plateau_step(self, metric, epoch=None):
        if epoch is None:
            epoch = self.last_epoch + 1
        self.last_epoch = epoch
        if self.last_epoch <= self.warmup:
            for g in self.optimizer.param_groups:
                g["lr"] = g["initial_lr"] * self.last_epoch / self.warmup
        else:
            if epoch is None:
                self.after.step(metric, None)
            else:
                self.after.step(metric, epoch - self.warmup)

    def step(self, epoch=None, metric=None):
        if TEST:
            if self.done:
                self.after.step()
            else:
                super().step(epoch)
        else:
            self.plateau_step(metric, epoch)


def train(model, loader, epochs):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    base = PolyDecay(opt, max_steps=epochs * len(loader))
    sched = Warmup(opt, warmup=len(loader), after=base)
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(epochs):
        for x, y in loader:
            with torch.autocast("cuda", dtype=torch.float16):
                loss = torch.nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            sched.step()
"""

_HANDOVER = 46  # `self.after.step()` in the non-plateau branch of step()
# `sched.step()` in the loop: a step the wrapper's own step() makes is reported at the
# wrapper's call in the training loop, naming the inner step (fphunt68)
_LOOP_CALL = 66


def test_type_inequality_on_a_project_scheduler_skips_the_dead_plateau_path():
    source = _WRAPPER.replace("TEST", "type(self.after) != ReduceLROnPlateau")
    assert findings(source) == [("LRD005", _LOOP_CALL)]
    assert f"train.py:{_HANDOVER}" in messages(source)[0]


def test_negated_isinstance_on_a_project_scheduler_skips_the_dead_plateau_path():
    source = _WRAPPER.replace("TEST", "not isinstance(self.after, ReduceLROnPlateau)")
    assert findings(source) == [("LRD005", _LOOP_CALL)]
    assert f"train.py:{_HANDOVER}" in messages(source)[0]


def test_undecidable_test_still_traces_both_paths():
    # a setting of the wrapper, not a class test: either path may run
    found = findings(_WRAPPER.replace("TEST", "self.warmup > 0"))
    assert ("LRD005", _LOOP_CALL) in found
    assert len([f for f in found if f[0] == "LRD005"]) == 3


_PLATEAU_BRANCH = """
import math
import torch
from torch.optim.lr_scheduler import _LRScheduler, ReduceLROnPlateau


SCHEDULER_CLASS


def fit(model, loader, val_loader, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = BUILD
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
        val = sum(torch.nn.functional.cross_entropy(model(x), y).item() for x, y in val_loader)
        if TEST:
            sched.step(val)
        else:
            sched.step()
"""

_COSINE = """
class WarmupCosine(_LRScheduler):
    def __init__(self, optimizer, warmup, total):
        self.warmup = warmup
        self.total = total
        super().__init__(optimizer)

    def get_lr(self):
        t = self.last_epoch
        if t < self.warmup:
            return [b * (t + 1) / self.warmup for b in self.base_lrs]
        p = (t - self.warmup) / max(1, self.total - self.warmup)
        return [b * 0.5 * (1 + math.cos(math.pi * p)) for b in self.base_lrs]
"""

_QUIET_PLATEAU = """
class QuietPlateau(ReduceLROnPlateau):
    def __init__(self, optimizer, patience):
        super().__init__(optimizer, mode="min", patience=patience)
"""


def _plateau_branch(cls: str, build: str, test: str) -> str:
    return _PLATEAU_BRANCH.replace("SCHEDULER_CLASS", cls).replace("BUILD", build) \
        .replace("TEST", test)


def test_plateau_branch_is_dead_for_a_project_cosine_class():
    for test in ("isinstance(sched, ReduceLROnPlateau)", "type(sched) == ReduceLROnPlateau",
                 "type(sched) is ReduceLROnPlateau"):
        assert codes(_plateau_branch(_COSINE, "WarmupCosine(opt, warmup=5, total=epochs)",
                                     test)) == []


def test_metric_handed_to_a_project_cosine_class_is_still_an_epoch():
    # no class test: the value goes to the epoch-counting step() of torch's base
    source = _plateau_branch(_COSINE, "WarmupCosine(opt, warmup=5, total=epochs)", "True")
    assert "LRD006" in codes(source)


def test_project_subclass_of_plateau_takes_its_metric():
    source = _plateau_branch(_QUIET_PLATEAU, "QuietPlateau(opt, patience=3)",
                             "isinstance(sched, ReduceLROnPlateau)")
    assert codes(source) == []
    # stepped with its metric unconditionally, too
    assert codes(_plateau_branch(_QUIET_PLATEAU, "QuietPlateau(opt, patience=3)", "True")) == []


def test_torch_plateau_and_torch_cosine_controls():
    torch_plateau = _plateau_branch("", "ReduceLROnPlateau(opt, mode='min', patience=3)",
                                    "isinstance(sched, ReduceLROnPlateau)")
    assert codes(torch_plateau) == []
    torch_cosine = _plateau_branch(
        "", "torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs)",
        "isinstance(sched, ReduceLROnPlateau)")
    assert codes(torch_cosine) == []


# -- the theme's spellings: per-micro-batch stepping and its correct twins -------------------

_LOOP = """
import torch


def train(model, loader, epochs, accum):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs * len(loader) // accum)
    for epoch in range(epochs):
        for i, batch in enumerate(loader):
            loss = model(batch) / accum
            loss.backward()
BODY
"""


def _loop(body: str) -> str:
    lines = [("            " + line) if line else "" for line in body.strip("\n").split("\n")]
    return _LOOP.replace("BODY", "\n".join(lines))


def test_scheduler_outside_the_accumulation_test():
    assert findings(_loop("""
if (i + 1) % accum == 0:
    opt.step()
    opt.zero_grad()
sched.step()
""")) == [("LRD017", 15)]


def test_accumulation_test_spellings():
    for test in ("i % accum == accum - 1", "not (i + 1) % accum",
                 "(i + 1) % accum == 0 or (i + 1) == len(loader)"):
        assert findings(_loop(f"""
if {test}:
    opt.step()
    opt.zero_grad()
sched.step()
""")) == [("LRD017", 15)], test


def test_flag_named_for_the_boundary():
    assert findings(_loop("""
should_step = (i + 1) % accum == 0
if should_step:
    opt.step()
    opt.zero_grad()
sched.step()
""")) == [("LRD017", 16)]


def test_scheduler_before_the_continue_of_non_boundary_batches():
    found = findings(_loop("""
sched.step()
if (i + 1) % accum != 0:
    continue
opt.step()
opt.zero_grad()
"""))
    assert ("LRD017", 12) in found


def test_correct_twins_stay_silent():
    for body in ("""
if (i + 1) % accum == 0:
    opt.step()
    sched.step()
    opt.zero_grad()
""", """
if (i + 1) % accum != 0:
    continue
opt.step()
sched.step()
opt.zero_grad()
""", """
did_step = False
if (i + 1) % accum == 0 or i + 1 == len(loader):
    opt.step()
    opt.zero_grad()
    did_step = True
if did_step:
    sched.step()
""", """
if (i + 1) % accum == 0:
    opt.step()
    opt.zero_grad()
else:
    continue
sched.step()
"""):
        assert codes(_loop(body)) == [], body


_NO_SYNC = """
import contextlib
import torch


def train(ddp_model, loader, accum, steps):
    opt = torch.optim.AdamW(ddp_model.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps)
    for i, batch in enumerate(loader):
        boundary = (i + 1) % accum == 0
        ctx = contextlib.nullcontext() if boundary else ddp_model.no_sync()
        with ctx:
            loss = ddp_model(batch) / accum
            loss.backward()
TAIL
"""


def test_no_sync_context_with_scheduler_per_micro_batch():
    bug = _NO_SYNC.replace("TAIL", """        if boundary:
            opt.step()
            opt.zero_grad()
        sched.step()""")
    assert findings(bug) == [("LRD017", 18)]
    ok = _NO_SYNC.replace("TAIL", """        if not boundary:
            continue
        opt.step()
        opt.zero_grad()
        sched.step()""")
    assert codes(ok) == []


_INNER = """
import torch


def train(model, get_batch, iters, accum):
    opt = torch.optim.AdamW(model.parameters(), lr=6e-4)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 200))
    for it in range(iters):
        for micro in range(accum):
            x, y = get_batch()
            loss = model(x, y) / accum
            loss.backward()
INNER
        opt.step()
OUTER
        opt.zero_grad(set_to_none=True)
"""


def test_inner_micro_step_loop():
    bug = _INNER.replace("INNER", "            sched.step()").replace("OUTER\n", "")
    assert findings(bug) == [("LRD017", 13)]
    ok = _INNER.replace("INNER\n", "").replace("OUTER", "        sched.step()")
    assert codes(ok) == []


def test_epoch_sized_steplr_stepped_per_update():
    source = """
import torch


def train(model, loader, epochs, accum):
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=30, gamma=0.1)
    for epoch in range(epochs):
        for i, (x, y) in enumerate(loader):
            loss = torch.nn.functional.cross_entropy(model(x), y) / accum
            loss.backward()
            if (i + 1) % accum == 0:
                opt.step()
                opt.zero_grad()
                STEP
        EPOCH
"""
    assert findings(source.replace("STEP", "sched.step()").replace("EPOCH", "pass")) \
        == [("LRD002", 15)]
    assert codes(source.replace("STEP", "pass").replace("EPOCH", "sched.step()")) == []


def test_helper_that_steps_on_every_call_and_one_that_reports_the_update():
    every = """
import torch


def optimizer_step(opt, sched, step, accum):
    if (step + 1) % accum == 0:
        opt.step()
        opt.zero_grad()
    sched.step()


def train(model, loader, epochs, accum):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs * len(loader) // accum)
    for epoch in range(epochs):
        for step, batch in enumerate(loader):
            loss = model(batch) / accum
            loss.backward()
            optimizer_step(opt, sched, step, accum)
"""
    assert findings(every) == [("LRD017", 9)]
    reports = """
import torch


def maybe_step(opt, step, accum):
    if (step + 1) % accum == 0:
        opt.step()
        opt.zero_grad()
        return True
    return False


def train(model, loader, epochs, accum):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs * len(loader) // accum)
    for epoch in range(epochs):
        for step, batch in enumerate(loader):
            loss = model(batch) / accum
            loss.backward()
            if maybe_step(opt, step, accum):
                sched.step()
"""
    assert codes(reports) == []


def test_hook_class_with_its_own_micro_batch_counter():
    source = """
import torch


class Loop:
    def __init__(self, model, opt, sched, accum):
        self.model, self.opt, self.sched, self.accum = model, opt, sched, accum
        self.micro = 0

    def on_backward(self):
        self.micro += 1
        if self.micro % self.accum == 0:
            self.opt.step()
            self.opt.zero_grad()

    def on_batch_end(self):
        self.sched.step()

    def run(self, loader, epochs):
        for _ in range(epochs):
            for batch in loader:
                loss = self.model(batch) / self.accum
                loss.backward()
                self.on_backward()
                self.on_batch_end()


def main(model, loader, epochs, accum):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs * len(loader) // accum)
    Loop(model, opt, sched, accum).run(loader, epochs)
"""
    assert findings(source) == [("LRD017", 17)]


_ACCELERATE = """
import torch
from accelerate import Accelerator
from transformers import get_cosine_schedule_with_warmup


def main(model, loader, epochs):
    acc = Accelerator(gradient_accumulation_steps=4)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    sched = get_cosine_schedule_with_warmup(opt, 500, epochs * len(loader) // 4)
    PREPARE
    for epoch in range(epochs):
        for batch in loader:
            with acc.accumulate(model):
                loss = model(batch)
                acc.backward(loss)
                opt.step()
                opt.zero_grad()
INSIDE
OUTSIDE
"""


def test_accelerate_scheduler_left_out_of_prepare():
    bug = _ACCELERATE.replace("PREPARE", "model, opt, loader = acc.prepare(model, opt, loader)") \
        .replace("INSIDE", "                sched.step()").replace("OUTSIDE\n", "")
    assert findings(bug) == [("LRD017", 19)]
    guarded = _ACCELERATE.replace(
        "PREPARE", "model, opt, loader = acc.prepare(model, opt, loader)"
    ).replace("INSIDE\n", "").replace(
        "OUTSIDE", "            if acc.sync_gradients:\n                sched.step()")
    assert codes(guarded) == []
    prepared = _ACCELERATE.replace(
        "PREPARE", "model, opt, loader, sched = acc.prepare(model, opt, loader, sched)"
    ).replace("INSIDE", "                sched.step()").replace("OUTSIDE\n", "")
    assert codes(prepared) == []


def test_scaler_accumulation_with_a_skip_check():
    source = """
import torch


def train(model, loader, epochs, accum):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3,
                                                total_steps=epochs * len(loader) // accum)
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(epochs):
        for i, batch in enumerate(loader):
            with torch.autocast("cuda", dtype=torch.float16):
                loss = model(batch) / accum
            scaler.scale(loss).backward()
            if (i + 1) % accum == 0:
                scaler.unscale_(opt)
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                before = scaler.get_scale()
                scaler.step(opt)
                scaler.update()
                opt.zero_grad()
                STEP
"""
    assert codes(source.replace("STEP", "if scaler.get_scale() >= before:\n"
                                        "                    sched.step()")) == []
    assert codes(source.replace("STEP", "sched.step()")) == ["LRD005"]
