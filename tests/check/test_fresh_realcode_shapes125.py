"""Shapes seen in the fresh-2026-12zzx123 batch (rcnew123, bench/realcode/README.md):
checkpoint save and resume spread over modules (a base trainer that owns saving and
resuming while a subclass owns the scheduler, save helpers in a utils module, hooks and
callbacks, registry-built trainers, rank-0 saves, EMA copies, best versus last files).

Programs written for these tests; no third-party code.

The batch's cases were all right at first sight. Probing the family showed four things,
fixed here:

- A save helper that writes the dict its caller built under a name (``state = {...}`` then
  ``save_snapshot(state, path)``, the helper's body ``torch.save(state, path)``) was reported
  once, inside the helper, for every caller. A dict display handed over directly was already
  reported where it is written; a named one now is too (its binding in the caller's block,
  or an enclosing block, when nothing else fills or rebinds it), so each caller's checkpoint
  gets its own finding at the dict that lacks the entry. A rank-0 pass-through (``def
  save_on_master(*args, **kwargs): torch.save(*args, **kwargs)``) is followed the same way,
  to the first argument its caller hands to ``*args``.
- A LambdaLR whose factor is held on the instance (``self.lr_fn = lambda _: ...`` then
  ``LambdaLR(self.optimizer, self.lr_fn)``) and ignores the step count it is given, reading
  a counter the checkpoint restores, was reported: "the schedule restarts". It loses nothing;
  the same factor held in a local name was already understood.
- A checkpoint built by a comprehension over names kept in a class or module constant
  (``KEYS = ("model", "optimizer")``, ``{k: getattr(self, k).state_dict() for k in
  self.KEYS}``) was not judged (only a literal tuple in the comprehension was unrolled): a
  scheduler left out of such a list was missed. A list something appends to stays unjudged.
- A count saved beside the optimizer (``"step": step``) whose value came back from the
  project's epoch function (``step = run_epoch(model, loader, optimizer, scheduler, step)``)
  was read as the scheduler's state, the call's text naming it: the checkpoint was taken to
  hold the scheduler. What a function of the project returns is now read by its callee and
  the ``.state_dict()`` calls in its arguments, unless the function itself reads some object's
  state (``def pack(*objs): return [o.state_dict() for o in objs]``).

The rest are probes of the theme kept as regression tests (right on both builds).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, findings, project_codes

# --- a save helper handed a dict its caller named ------------------------------------------

IO_HELPER = '''
import torch


def save_snapshot(state, filename):
    torch.save(state, filename)
'''

NAMED_DICTS = '''
import torch
from snapio import save_snapshot


def main(loader, resume=None, epochs=10):
    model = torch.nn.Linear(4, 4).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    start = 0
    if resume:
        ck = torch.load(resume)
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        start = ck["epoch"] + 1
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(start, epochs):
        for i, (x, y) in enumerate(loader):
            opt.zero_grad()
            with torch.autocast("cuda", dtype=torch.float16):
                loss = torch.nn.functional.mse_loss(model(x), y)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            if i % 1000 == 0:
                snapshot = {"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch}
                save_snapshot(snapshot, "runtime.pt")
        state = {"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch}
        if epoch % 5 == 0:
            save_snapshot(state, "epoch.pt")
'''


def test_each_callers_named_dict_is_where_the_missing_scaler_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {"snapio.py": IO_HELPER,
                                                  "train.py": NAMED_DICTS})
    assert [(p, line) for p, line, code in found if code == "LRD007"] == [
        ("train.py", 25), ("train.py", 27)]


def test_named_dicts_that_hold_the_scaler_are_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = NAMED_DICTS.replace(
        '"opt": opt.state_dict(), "epoch": epoch}',
        '"opt": opt.state_dict(), "scaler": scaler.state_dict(), "epoch": epoch}',
    ).replace(
        '    scaler = torch.amp.GradScaler("cuda")\n',
        '    scaler = torch.amp.GradScaler("cuda")\n    if resume:\n'
        '        scaler.load_state_dict(ck["scaler"])\n',
    )
    found = check_project(tmp_path, monkeypatch, {"snapio.py": IO_HELPER, "train.py": source})
    assert "LRD007" not in project_codes(found)


def test_a_named_dict_filled_after_its_display_is_judged_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the display lacks the scaler, the line after adds it: nothing is missing
    source = NAMED_DICTS.replace(
        '        state = {"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch}\n',
        '        state = {"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch}\n'
        '        state["scaler"] = scaler.state_dict()\n',
    )
    found = check_project(tmp_path, monkeypatch, {"snapio.py": IO_HELPER, "train.py": source})
    assert ("train.py", 27) not in [(p, line) for p, line, _ in found]
    assert ("train.py", 25) in [(p, line) for p, line, code in found if code == "LRD007"]


# --- a LambdaLR factor held on the instance ------------------------------------------------

MIXIN = '''
import os
import torch


class SnapshotMixin:
    def save_snapshot(self, tag):
        torch.save({"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                    "step": self.step}, os.path.join(self.out, f"{tag}.pt"))

    def load_snapshot(self, tag):
        blob = torch.load(os.path.join(self.out, f"{tag}.pt"))
        self.model.load_state_dict(blob["model"])
        self.optimizer.load_state_dict(blob["optimizer"])
        self.step = blob["step"]
'''

HELD_FACTOR = '''
import torch
from snapshots import SnapshotMixin


class TokenTrainer(SnapshotMixin):
    def __init__(self, model, loader, out, total_steps):
        self.model, self.loader, self.out = model, loader, out
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
        self.lr_fn = FACTOR
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, self.lr_fn)
        self.total_steps = total_steps
        self.step = 0

    def train(self, resume=False):
        if resume:
            self.load_snapshot("last")
        batches = iter(self.loader)
        while self.step < self.total_steps:
            x, y = next(batches)
            self.optimizer.zero_grad()
            torch.nn.functional.cross_entropy(self.model(x), y).backward()
            self.optimizer.step()
            self.scheduler.step()
            self.step += 1
            if self.step % 500 == 0:
                self.save_snapshot("last")
'''


def test_a_held_factor_reading_the_restored_counter_loses_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "snapshots.py": MIXIN,
        "train.py": HELD_FACTOR.replace("FACTOR", "lambda _: min(1.0, (self.step + 1) / 1000)"),
    })
    assert "LRD007" not in project_codes(found)


def test_a_held_factor_of_the_step_count_restarts_on_resume(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "snapshots.py": MIXIN,
        "train.py": HELD_FACTOR.replace("FACTOR", "lambda s: min(1.0, (s + 1) / 1000)"),
    })
    assert project_codes(found) == ["LRD007", "LRD007"]


# --- a checkpoint built over a constant list of attribute names ----------------------------

KEYED = '''
import torch

MODULE_KEYS


class Fitter:
    CLASS_KEYS

    def __init__(self, loader, epochs=30):
        self.loader, self.epochs = loader, epochs
        self.model = torch.nn.Linear(4, 2)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, 10)
        self.epoch = 0
GROW
    def save(self, path):
        state = {k: getattr(self, k).state_dict() for k in KEYS_READ}
        state["epoch"] = self.epoch
        torch.save(state, path)

    def load(self, path):
        state = torch.load(path)
        for k in KEYS_READ:
            getattr(self, k).load_state_dict(state[k])
        self.epoch = state["epoch"] + 1

    def fit(self, resume=None):
        if resume:
            self.load(resume)
        for self.epoch in range(self.epoch, self.epochs):
            for x, y in self.loader:
                self.optimizer.zero_grad()
                torch.nn.functional.cross_entropy(self.model(x), y).backward()
                self.optimizer.step()
            self.scheduler.step()
            self.save("last.pt")
'''


def _keyed(keys: str, where: str, grow: str = "") -> str:
    module = f"KEYS = {keys}" if where == "module" else ""
    klass = f"KEYS = {keys}" if where == "class" else "pass"
    read = "KEYS" if where == "module" else "self.KEYS"
    return (KEYED.replace("MODULE_KEYS", module).replace("CLASS_KEYS", klass)
            .replace("KEYS_READ", read).replace("GROW", grow))


@pytest.mark.parametrize("where", ["class", "module"])
def test_a_constant_list_of_names_without_the_scheduler_is_reported(where: str) -> None:
    assert codes(_keyed('("model", "optimizer")', where)) == ["LRD007"]


@pytest.mark.parametrize("where", ["class", "module"])
def test_a_constant_list_of_names_with_the_scheduler_is_silent(where: str) -> None:
    assert codes(_keyed('("model", "optimizer", "scheduler")', where)) == []


def test_a_list_of_names_the_instance_extends_is_not_judged() -> None:
    grown = '        self.KEYS = self.KEYS + ("scheduler",)\n'
    assert codes(_keyed('("model", "optimizer")', "class", grown)) == []


def test_a_module_list_of_names_appended_to_is_not_judged() -> None:
    grown = '        KEYS.append("scheduler")\n'
    assert codes(_keyed('["model", "optimizer"]', "module", grown)) == []


# --- regression probes of the family (right on both builds) --------------------------------

ENGINE = '''
import torch


class Engine:
    def __init__(self, net, opt, resume=None):
        self.net = net
        self.opt = opt
        self.first_epoch = 0
        if resume:
            blob = torch.load(resume)
            self.net.load_state_dict(blob["net"])
            self.opt.load_state_dict(blob["opt"])
            self.first_epoch = blob["epoch"] + 1

    def one_epoch(self, epoch):
        raise NotImplementedError

    def fit(self, n_epochs):
        for epoch in range(self.first_epoch, n_epochs):
            self.one_epoch(epoch)
            torch.save({"net": self.net.state_dict(), "opt": self.opt.state_dict(),
                        "epoch": epoch}, "last.pt")
'''

SUBCLASS = '''
import torch
from engine import Engine


class Classifier(Engine):
    def __init__(self, net, opt, loader, resume=None):
        super().__init__(net, opt, resume)
        self.loader = loader
        self.decay = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[30, 60])

    def one_epoch(self, epoch):
        for x, y in self.loader:
            self.opt.zero_grad()
            torch.nn.functional.cross_entropy(self.net(x), y).backward()
            self.opt.step()
        self.decay.step()


def main(loader, resume=None):
    net = torch.nn.Linear(4, 2)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    Classifier(net, opt, loader, resume).fit(90)
'''


def test_base_class_checkpoint_without_the_subclass_scheduler_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {"engine.py": ENGINE, "train.py": SUBCLASS})
    assert [(p, code) for p, _, code in found] == [("engine.py", "LRD007"),
                                                  ("engine.py", "LRD007")]


def test_subclass_that_adds_its_scheduler_to_the_base_checkpoint_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = ENGINE.replace(
        '            self.opt.load_state_dict(blob["opt"])\n',
        '            self.opt.load_state_dict(blob["opt"])\n            self.pending = blob["sched"]\n',
    ).replace('"epoch": epoch}, "last.pt")', '"sched": self.decay.state_dict(), "epoch": epoch},'
              ' "last.pt")')
    subclass = SUBCLASS.replace(
        "        self.decay = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[30, 60])\n",
        "        self.decay = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[30, 60])\n"
        "        if resume:\n            self.decay.load_state_dict(self.pending)\n",
    )
    found = check_project(tmp_path, monkeypatch, {"engine.py": engine, "train.py": subclass})
    assert project_codes(found) == []


HOOKS = '''
import torch


class Hook:
    def before_run(self, runner):
        pass

    def after_epoch(self, runner):
        pass


class LrHook(Hook):
    def after_epoch(self, runner):
        runner.sched.step()


class SaveHook(Hook):
    def after_epoch(self, runner):
        torch.save({"weights": runner.model.state_dict(), "optim": runner.optim.state_dict(),
                    SCHED_SAVED"epoch": runner.epoch}, f"ep{runner.epoch}.pth")


class ResumeHook(Hook):
    def __init__(self, path):
        self.path = path

    def before_run(self, runner):
        if self.path:
            blob = torch.load(self.path)
            runner.model.load_state_dict(blob["weights"])
            runner.optim.load_state_dict(blob["optim"])
SCHED_LOADED            runner.epoch = blob["epoch"] + 1
'''

RUNNER = '''
import torch
from hooks import LrHook, SaveHook, ResumeHook


class Runner:
    def __init__(self, model, loader, hooks):
        self.model = model
        self.loader = loader
        self.optim = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        self.sched = torch.optim.lr_scheduler.StepLR(self.optim, step_size=30)
        self.hooks = hooks
        self.epoch = 0

    def call(self, name):
        for h in self.hooks:
            getattr(h, name)(self)

    def run(self, max_epochs):
        self.call("before_run")
        while self.epoch < max_epochs:
            for x, y in self.loader:
                self.optim.zero_grad()
                torch.nn.functional.cross_entropy(self.model(x), y).backward()
                self.optim.step()
            self.call("after_epoch")
            self.epoch += 1


def main(loader, resume=""):
    Runner(torch.nn.Linear(3, 3), loader, [LrHook(), SaveHook(), ResumeHook(resume)]).run(90)
'''


@pytest.mark.parametrize("kept, expected", [
    (False, ["LRD007", "LRD007"]),
    (True, []),
])
def test_hooks_that_save_and_resume_the_runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               kept: bool, expected: list[str]) -> None:
    hooks = HOOKS.replace("SCHED_SAVED", '"sched": runner.sched.state_dict(), ' if kept else "")
    hooks = hooks.replace("SCHED_LOADED", '            runner.sched.load_state_dict(blob["sched"])\n'
                          if kept else "")
    found = check_project(tmp_path, monkeypatch, {"hooks.py": hooks, "runner.py": RUNNER})
    assert project_codes(found) == expected


CHECKPOINTER = '''
import torch


class Checkpointer:
    def __init__(self, path, **objects):
        self.path = path
        self.objects = objects

    def save(self, **extra):
        state = {k: v.state_dict() for k, v in self.objects.items()}
        state.update(extra)
        torch.save(state, self.path)

    def load(self):
        state = torch.load(self.path)
        for k, v in self.objects.items():
            v.load_state_dict(state[k])
        return state


def main(loader, resume=False, epochs=30):
    model = torch.nn.Linear(4, 2).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    scaler = torch.amp.GradScaler("cuda")
    ckpt = Checkpointer("last.pt", OBJECTS)
    start = 0
    if resume:
        start = ckpt.load()["epoch"] + 1
    for epoch in range(start, epochs):
        for x, y in loader:
            optimizer.zero_grad()
            with torch.autocast("cuda", dtype=torch.float16):
                loss = torch.nn.functional.cross_entropy(model(x), y)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        scheduler.step()
        ckpt.save(epoch=epoch)
'''


def test_checkpointer_given_every_object_by_keyword_is_silent() -> None:
    source = CHECKPOINTER.replace(
        "OBJECTS", "model=model, optimizer=optimizer, scheduler=scheduler, scaler=scaler")
    assert codes(source) == []


def test_checkpointer_not_given_the_scheduler_is_reported() -> None:
    source = CHECKPOINTER.replace("OBJECTS", "model=model, optimizer=optimizer, scaler=scaler")
    assert codes(source) == ["LRD007", "LRD007"]


REGISTRY_TRAINER = '''
import torch
import torch.distributed as dist

TRAINERS = {}


def register(name):
    def wrap(cls):
        TRAINERS[name] = cls
        return cls
    return wrap


@register("seg")
class SegTrainer:
    def __init__(self, cfg, model, loader):
        self.cfg = cfg
        self.model = model
        self.loader = loader
        self.opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"])
        self.sched = torch.optim.lr_scheduler.StepLR(self.opt, step_size=10)
        self.scaler = torch.amp.GradScaler("cuda")
        self.start = 0

    def save(self, epoch):
        if dist.get_rank() == 0:
            torch.save({"model": self.model.state_dict(), "opt": self.opt.state_dict(),
                        "sched": self.sched.state_dict(),SCALER "epoch": epoch}, "last.pth")

    def fit(self):
        for epoch in range(self.start, self.cfg["epochs"]):
            for x, y in self.loader:
                self.opt.zero_grad()
                with torch.autocast("cuda", dtype=torch.float16):
                    loss = torch.nn.functional.cross_entropy(self.model(x), y)
                self.scaler.scale(loss).backward()
                self.scaler.step(self.opt)
                self.scaler.update()
            self.sched.step()
            self.save(epoch)


def main(cfg, loader):
    TRAINERS[cfg["trainer"]](cfg, torch.nn.Linear(5, 3).cuda(), loader).fit()
'''


def test_rank_zero_save_of_a_registry_trainer_without_the_scaler_is_reported() -> None:
    found = findings(REGISTRY_TRAINER.replace("SCALER", ""))
    assert [code for code, _ in found] == ["LRD007"]


def test_rank_zero_save_of_a_registry_trainer_with_the_scaler_is_silent() -> None:
    assert codes(REGISTRY_TRAINER.replace("SCALER", ' "scaler": self.scaler.state_dict(),')) == []


# --- a count returned by a project function that was handed the scheduler ------------------

COUNTED = '''
import torch


def build(model, lr, decay_every):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=decay_every, gamma=0.2)
    return optimizer, scheduler


def pack(*objs):
    return [o.state_dict() for o in objs]


def run_epoch(model, loader, optimizer, scheduler, step):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
        scheduler.step()
        step += 1
    return step


def save_progress(model, optimizer, step, epoch, extra, path):
    state = {"step": step, "epoch": epoch, "model": model.state_dict(),
             "optimizer": optimizer.state_dict(), "extra": extra}
    torch.save(state, path)


def load_progress(model, optimizer, path):
    blob = torch.load(path)
    model.load_state_dict(blob["model"])
    return model, optimizer, blob["step"], blob["epoch"]


def main(loader, resume=True, epochs=250):
    model = torch.nn.Linear(4, 2)
    optimizer, scheduler = build(model, 0.1, 25000)
    step, first = 0, 0
    if resume:
        model, optimizer, step, first = load_progress(model, optimizer, "last.pth")
    for epoch in range(first, epochs):
        step = run_epoch(model, loader, optimizer, scheduler, step)
        save_progress(model, optimizer, step, epoch, EXTRA, "last.pth")
'''


def test_a_step_count_returned_by_the_epoch_function_is_not_the_schedulers_state() -> None:
    # `step` comes back from `run_epoch(..., scheduler, step)`: a number, not the StepLR's
    # state, whatever the names in the call that returned it
    assert codes(COUNTED.replace("EXTRA", "None")) == ["LRD007"]


def test_a_project_function_that_packs_state_dicts_keeps_what_it_was_handed() -> None:
    assert codes(COUNTED.replace("EXTRA", "pack(scheduler)")) == []


# --- a rank-0 pass-through save helper (`def save_on_master(*args, **kwargs)`) -------------

MASTER_HELPER = '''
import torch
import torch.distributed as dist


def is_main_process():
    return not dist.is_initialized() or dist.get_rank() == 0


def save_on_main(*args, **kwargs):
    if is_main_process():
        torch.save(*args, **kwargs)
'''

MASTER_DRIVER = '''
import torch
import distutil


def main(loader, resume="", epochs=300):
    model = torch.nn.Linear(4, 4)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    lr_scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 200)
    start_epoch = 0
    if resume:
        checkpoint = torch.load(resume, map_location="cpu")
        model.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
RESTORE        start_epoch = checkpoint["epoch"] + 1
    for epoch in range(start_epoch, epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        lr_scheduler.step()
        distutil.save_on_main({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                               SAVED"epoch": epoch}, "checkpoint.pth")
'''


def test_a_pass_through_save_is_reported_at_the_dict_the_driver_writes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "distutil.py": MASTER_HELPER,
        "train.py": MASTER_DRIVER.replace("RESTORE", "").replace("SAVED", ""),
    })
    assert [(p, line, code) for p, line, code in found] == [
        ("train.py", 14, "LRD007"), ("train.py", 22, "LRD007")]


def test_a_pass_through_save_of_every_state_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "distutil.py": MASTER_HELPER,
        "train.py": MASTER_DRIVER.replace(
            "RESTORE", '        lr_scheduler.load_state_dict(checkpoint["lr_scheduler"])\n'
        ).replace("SAVED", '"lr_scheduler": lr_scheduler.state_dict(), '),
    })
    assert project_codes(found) == []
