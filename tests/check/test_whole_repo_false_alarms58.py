"""fphunt68: whole repositories of speech, TTS and audio generation, video, remote sensing,
medical segmentation and registration, single-cell and protein models, self-supervised
pre-training, DreamBooth / LoRA fine-tuning and anomaly detection, and probes of their
spellings. No false alarm at first sight; one miss found by probing, fixed:

1. LRD004 missed where the plateau watches a local accumulator of the loss just
   backpropagated whose name is none of the usual ones (`running += loss.item()` then
   `sched.step(running / len(train_loader))`, `seen.append(loss.item())` then
   `sched.step(np.mean(seen))`) while a validation loss is computed beside it. The sum of the
   backpropagated loss is the training loss whatever it is called. Still silent: a sum
   filled after a validation pass binds `loss` anew (its own loss), a sum of the training
   loss where no validation metric exists, a name also bound any other way.

2. LRD005 reported inside a scheduler class of the project (a warm-up wrapper whose own
   `step()` runs `super().step(epoch)` and then its inner scheduler's `step()`): the inner
   step runs when, and because, the wrapper is stepped after `scaler.step(optimizer)` in the
   training loop; the finding is now made once, at the wrapper's call in the loop, naming
   the inner scheduler, not at the wrapper's correct code (where a repository that also
   builds plain schedulers got it twice). Still silent: the wrapper stepped only when the
   scale did not drop.

3. A file whose f-strings are written for Python 3.12 (PEP 701: the f-string's own quote
   inside a replacement field, `f"{cfg["name"]}"`; a comment, a backslash or a line break
   there) was "not checked" on the 3.11 lrdoctor runs on (the training module of a
   single-cell foundation model among them): such an f-string, where the parser stops, is
   rewritten into one 3.11 parses (the nested string's quotes swapped, a clashing character
   of it blanked, a comment or backslash blanked, a single-quoted f-string broken inside a
   field made triple-quoted), every line kept in place, and the file parsed again. A file
   broken otherwise is still not checked.
4. LRD007 named a mask-probability schedule (`mask_scheduler`, a parameter known by its name
   alone) as a second LR scheduler the checkpoint leaves out: a name that says it schedules
   something other than the learning rate (a masking or noise level, a loss weight, a
   temperature, a momentum, a ratio) is not guessed to be an LR scheduler. Another
   scheduler named so (`warm_scheduler`) is still one.

The other tests keep the population's correct shapes silent and their buggy twins found
(they pass on the starting build too): an accumulation boundary with a horizon in updates or
in batches, a plateau picked by a setting and dispatched on its type or on the setting, a
checkpoint of an optional GradScaler, `step(epoch)` on CosineAnnealingWarmRestarts (its
documented use) and on ExponentialLR, a warm-up dampening around a per-batch schedule.
"""

from __future__ import annotations

from lrdoctor.check.engine import check_source

from .helpers import codes, findings

# -- 1. LRD004: the plateau watches an accumulator of the backpropagated loss -------------------

_PLATEAU = """
import numpy as np
import torch
from torch import nn


def fit(model, train_loader, val_loader, epochs):
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=4)
    for epoch in range(epochs):
        model.train()
        START
        for x, y in train_loader:
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            FILL
        model.eval()
        VALIDATE
        print(epoch, SHOWN)
        sched.step(WATCHED)
"""

_VAL_LOOP = """held = 0.0
        with torch.no_grad():
            for x, y in val_loader:
                held += nn.functional.cross_entropy(model(x), y).item()
        val_loss = held / len(val_loader)"""


def _plateau(start: str, fill: str, watched: str, validate: str = _VAL_LOOP,
             shown: str = "val_loss") -> list[str]:
    return codes(_PLATEAU.replace("START", start).replace("FILL", fill)
                 .replace("VALIDATE", validate).replace("SHOWN", shown)
                 .replace("WATCHED", watched))


def test_mean_of_an_accumulated_training_loss_beside_a_validation_loss_is_found() -> None:
    assert _plateau("running = 0.0", "running += loss.item()",
                    "running / len(train_loader)") == ["LRD004"]


def test_an_accumulated_training_loss_weighted_by_the_batch_is_found() -> None:
    assert _plateau("tot = 0", "tot += loss.item() * x.size(0)",
                    "tot / len(train_loader.dataset)") == ["LRD004"]


def test_mean_of_a_list_of_training_losses_is_found() -> None:
    assert _plateau("seen = []", "seen.append(float(loss))", "np.mean(seen)") == ["LRD004"]


def test_the_validation_loss_itself_is_silent() -> None:
    assert _plateau("running = 0.0", "running += loss.item()", "val_loss") == []


def test_a_sum_of_a_validation_pass_that_rebinds_the_loss_is_silent() -> None:
    validate = """total = 0.0
        with torch.no_grad():
            for x, y in val_loader:
                loss = nn.functional.cross_entropy(model(x), y)
                total += loss.item()
        score = 0.0"""
    assert _plateau("running = 0.0", "running += loss.item()", "total / len(val_loader)",
                    validate=validate, shown="score") == []


def test_an_accumulated_training_loss_without_validation_is_silent() -> None:
    assert _plateau("running = 0.0", "running += loss.item()", "running / len(train_loader)",
                    validate="pass", shown="running") == []


def test_an_accumulator_also_bound_to_something_else_is_silent() -> None:
    assert _plateau("running = model.initial_score()", "running += loss.item()",
                    "running / len(train_loader)") == []


def test_an_accumulator_filled_with_something_else_is_silent() -> None:
    assert _plateau("running = 0.0", "running += model.penalty()",
                    "running / len(train_loader)") == []


# -- the population's shapes ----------------------------------------------------------------------

_ACCUM = """
import math
import torch


class Trainer:
    def __init__(self, model, loader, cfg):
        self.model = model
        self.loader = loader
        self.accum = cfg.get("accum", 1)
        self.epochs = cfg["epochs"]
        self.opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
        self.sched = torch.optim.lr_scheduler.CosineAnnealingLR(self.opt, T_max=HORIZON)

    def fit(self):
        for _ in range(self.epochs):
            for step, (x, y) in enumerate(self.loader):
                loss = torch.nn.functional.mse_loss(self.model(x), y) / self.accum
                loss.backward()
                if (step + 1) % self.accum == 0:
                    self.opt.step()
                    self.opt.zero_grad()
                    self.sched.step()
"""


def test_a_horizon_in_updates_stepped_at_the_accumulation_boundary_is_silent() -> None:
    assert codes(_ACCUM.replace("HORIZON", "self.epochs * len(self.loader) // self.accum")) == []
    assert codes(_ACCUM.replace(
        "HORIZON", "self.epochs * math.ceil(len(self.loader) / self.accum)")) == []


def test_a_horizon_in_batches_stepped_at_the_accumulation_boundary_is_found() -> None:
    assert codes(_ACCUM.replace("HORIZON", "self.epochs * len(self.loader)")) == ["LRD003"]


_CHOSEN = """
import argparse
import torch


def fit(model, train_loader, val_loader, opt, epochs, scheduler=None, kind=None):
    for epoch in range(epochs):
        for x, y in train_loader:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        total = 0.0
        with torch.no_grad():
            for x, y in val_loader:
                total += torch.nn.functional.cross_entropy(model(x), y).item()
        val_loss = total / len(val_loader)
        if scheduler is not None:
            STEP


def main(model, train_loader, val_loader):
    p = argparse.ArgumentParser()
    p.add_argument("--scheduler", default=None)
    args = p.parse_args()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    if args.scheduler == "step":
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=5, gamma=0.5)
    elif args.scheduler == "plateau":
        sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", patience=3)
    else:
        sched = None
    fit(model, train_loader, val_loader, opt, 20, scheduler=sched, kind=args.scheduler)
"""


def test_a_chosen_plateau_dispatched_on_its_type_or_the_setting_is_silent() -> None:
    by_type = """if isinstance(scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau):
                scheduler.step(val_loss)
            else:
                scheduler.step()"""
    by_setting = by_type.replace(
        "isinstance(scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau)", 'kind == "plateau"')
    assert codes(_CHOSEN.replace("STEP", by_type)) == []
    assert codes(_CHOSEN.replace("STEP", by_setting)) == []


def test_a_chosen_plateau_stepped_without_a_metric_is_found() -> None:
    assert codes(_CHOSEN.replace("STEP", "scheduler.step()")) == ["LRD004"]


_OPTIONAL_SCALER = """
import torch


class Trainer:
    def __init__(self, model, loader, cfg):
        self.model, self.loader, self.cfg = model, loader, cfg
        self.opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
        self.sched = torch.optim.lr_scheduler.CosineAnnealingLR(self.opt, T_max=cfg.epochs)
        self.use_amp = getattr(cfg, "use_amp", False) and torch.cuda.is_available()
        self.scaler = torch.amp.GradScaler("cuda") if self.use_amp else None
        self.start = 0

    def step(self, x):
        with torch.autocast("cuda", enabled=self.use_amp):
            loss = self.model(x).pow(2).mean()
        self.opt.zero_grad()
        if self.scaler is not None:
            self.scaler.scale(loss).backward()
            self.scaler.step(self.opt)
            self.scaler.update()
        else:
            loss.backward()
            self.opt.step()

    def save(self, path, epoch):
        torch.save({"epoch": epoch, "model": self.model.state_dict(),
                    "optimizer": self.opt.state_dict(), "scheduler": self.sched.state_dict(),
                    SAVED}, path)

    def load(self, path):
        ck = torch.load(path)
        self.model.load_state_dict(ck["model"])
        self.opt.load_state_dict(ck["optimizer"])
        self.sched.load_state_dict(ck["scheduler"])
        LOADED
        self.start = ck["epoch"] + 1

    def train(self):
        for epoch in range(self.start, self.cfg.epochs):
            for x in self.loader:
                self.step(x)
            self.sched.step()
            self.save("last.pt", epoch)
"""


def test_an_optional_scaler_saved_when_it_exists_is_silent() -> None:
    assert codes(_OPTIONAL_SCALER.replace(
        "SAVED", '"scaler": self.scaler.state_dict() if self.scaler is not None else None'
    ).replace("LOADED", """if self.scaler is not None and ck.get("scaler") is not None:
            self.scaler.load_state_dict(ck["scaler"])""")) == []


def test_an_optional_scaler_left_out_of_the_resumed_checkpoint_is_found() -> None:
    assert codes(_OPTIONAL_SCALER.replace("SAVED", '"note": "amp"')
                 .replace("LOADED", "pass")) == ["LRD007"]


_RESUME_EPOCH = """
import torch


def main(model, loader, args):
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
    sched = BUILT
    start_epoch = args.start_epoch or 0
    if start_epoch > 0:
        sched.step(start_epoch)
    for epoch in range(start_epoch, args.epochs):
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
"""


def test_warm_restarts_positioned_by_its_epoch_argument_is_silent() -> None:
    assert codes(_RESUME_EPOCH.replace(
        "BUILT", "torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=10, T_mult=2)")) == []


def test_exponential_positioned_by_the_deprecated_epoch_argument_is_found() -> None:
    assert codes(_RESUME_EPOCH.replace(
        "BUILT", "torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.95)")) == ["LRD006"]


_DAMPENED = """
import torch
import pytorch_warmup as warmup


def run(model, loader, epochs, use_amp):
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs * len(loader))
    warm = warmup.LinearWarmup(opt, warmup_period=200)
    scaler = torch.amp.GradScaler("cuda", enabled=use_amp)
    for _ in range(epochs):
        for x, y in loader:
            with torch.autocast("cuda", enabled=use_amp):
                loss = torch.nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            UPDATE
            with warm.dampening():
                sched.step()
"""


def test_a_dampened_per_batch_schedule_without_a_scaler_is_silent() -> None:
    assert codes(_DAMPENED.replace("UPDATE", "loss.backward()\n            opt.step()")) == []


def test_a_dampened_per_batch_schedule_after_a_scaler_step_is_found() -> None:
    update = "scaler.scale(loss).backward()\n            scaler.step(opt)\n            scaler.update()"
    assert codes(_DAMPENED.replace("UPDATE", update)) == ["LRD005"]


# -- 2. LRD005: the inner scheduler of a project's warm-up wrapper ------------------------------

_WRAPPER = """
import torch
from torch.optim.lr_scheduler import _LRScheduler


class WarmThen(_LRScheduler):
    def __init__(self, optimizer, inner, warm_steps=0, last_epoch=-1):
        self.inner = inner
        self.warm_steps = warm_steps
        self.peaks = [g["lr"] for g in optimizer.param_groups]
        super().__init__(optimizer, last_epoch=last_epoch)

    def get_lr(self):
        if self.warm_steps == 0 or self.last_epoch >= self.warm_steps:
            return self.inner.get_last_lr()
        return [p * self.last_epoch / self.warm_steps for p in self.peaks]

    def step(self, epoch=None):
        super().step(epoch)
        if self.last_epoch >= self.warm_steps:
            self.inner.step()


def make(optimizer, total, warm):
    inner = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=max(1, total - warm))
    return WarmThen(optimizer, inner, warm_steps=warm)


class Trainer:
    def __init__(self, model, loader, cfg):
        self.model, self.loader, self.cfg = model, loader, cfg
        self.opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
        self.sched = make(self.opt, cfg.steps, cfg.warm)
        self.fp16 = cfg.precision == "fp16"
        self.scaler = torch.amp.GradScaler("cuda", enabled=self.fp16)

    def train(self):
        for x in self.loader:
            with torch.autocast("cuda", dtype=torch.float16 if self.fp16 else torch.bfloat16):
                loss = self.model(x).mean()
            self.scaler.scale(loss).backward()
            UPDATE
"""

_PLAIN_UPDATE = """self.scaler.step(self.opt)
            self.scaler.update()
            self.opt.zero_grad()
            self.sched.step()"""


def test_a_wrapper_stepped_after_a_scaler_step_is_found_at_its_call_in_the_loop() -> None:
    source = _WRAPPER.replace("UPDATE", _PLAIN_UPDATE)
    line = next(i for i, text in enumerate(source.splitlines(), 1)
                if text.strip() == "self.sched.step()")
    assert findings(source) == [("LRD005", line)]


def test_a_wrapper_stepped_only_when_the_scale_holds_is_silent() -> None:
    update = """before = self.scaler.get_scale()
            self.scaler.step(self.opt)
            self.scaler.update()
            self.opt.zero_grad()
            if self.scaler.get_scale() >= before:
                self.sched.step()"""
    assert codes(_WRAPPER.replace("UPDATE", update)) == []


# -- 3. f-strings written for Python 3.12 --------------------------------------------------------

_NEWER = """
import torch


def train(model, loader, cfg, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10)
    for epoch in range(epochs):
        sched.step()
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            LOGGED
"""


def test_a_python_312_fstring_with_its_own_quote_inside_is_checked() -> None:
    logged = 'print(f"{cfg["name"]}: step {len(loader) * cfg["parts"]} lr {sched.get_last_lr()[0]:.2e}")'
    assert codes(_NEWER.replace("LOGGED", logged)) == ["LRD001"]


def test_a_python_312_fstring_with_a_comment_a_backslash_or_a_line_break_is_checked() -> None:
    logged = """print(f"{'-'.join(cfg['tags'])} {cfg.get('a' + '\\x41', 0)} {
                epoch  # the epoch
            }")"""
    assert codes(_NEWER.replace("LOGGED", logged)) == ["LRD001"]


def test_lines_after_a_rewritten_fstring_keep_their_numbers() -> None:
    logged = 'print(f"{cfg["name"]}")'
    source = _NEWER.replace("LOGGED", logged)
    line = next(i for i, text in enumerate(source.splitlines(), 1)
                if text.strip() == "sched.step()")
    assert findings(source) == [("LRD001", line)]


def test_a_file_broken_otherwise_is_still_not_checked() -> None:
    source = _NEWER.replace("LOGGED", 'print(f"{cfg["name"]}")\n            x = (')
    assert check_source(source, "train.py").errors != []


# -- 4. a schedule of something other than the learning rate ------------------------------------

_SECOND = """
import torch


def train(model, loader, optimizer, scheduler, NAME, epochs, path):
    for epoch in range(epochs):
        for x in loader:
            loss = model(x).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
        NAME.step()
        torch.save({"epoch": epoch, "model": model.state_dict(),
                    "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict()}, path)


def resume(model, optimizer, scheduler, path):
    state = torch.load(path)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    return state["epoch"] + 1
"""


def test_a_mask_probability_schedule_left_out_of_the_checkpoint_is_silent() -> None:
    assert codes(_SECOND.replace("NAME", "mask_scheduler")) == []
    assert codes(_SECOND.replace("NAME", "noise_schedule")) == []


def test_a_second_lr_scheduler_left_out_of_the_checkpoint_is_found() -> None:
    assert codes(_SECOND.replace("NAME", "warm_scheduler")) == ["LRD007"]
