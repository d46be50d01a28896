"""False alarms of fphunt46's whole-repository hunt (bench/realcode/FPHUNT.md), by shape.

Programs written for these tests; no third-party code.

1. A LightningModule (automatic optimization) that overrides ``optimizer_step(epoch,
   batch_idx, optimizer, closure)`` and steps its scheduler there, after
   ``optimizer.step(closure=closure)``: Lightning calls that override for every update in
   place of its own ``optimizer.step``, so the scheduler advances once per update, and a
   warm-up sized in batches runs through at that pace. LRD003 ("returned without
   ``"interval": "step"``: Lightning steps it once per epoch; the warm-up lasts
   num_warmup_steps epochs") described a schedule that never happens: lrdoctor did not know
   the hook ran per update at all. What does happen is still reported: Lightning's own
   epoch-end step on top (LRD012 at the hand step), a scheduler sized in epochs stepped there
   (LRD002), and the same module without the hand step (LRD003).
2. A function that saves a float16 copy of the model, ``model = copy.deepcopy(model).half()``
   then ``torch.save(model.state_dict(), path)``: the cast value is a new object bound to a
   local name of that function, which never leaves it (not returned, not passed on whole,
   its parameters never handed out), so no optimizer updates its parameters. LRD102 matched
   the name ``model`` across the file and said the Adam that trains the float32 model
   elsewhere updates float16 parameters. Still reported: an in-place ``model.half()`` of the
   argument (the caller's module), a cast copy that the same function trains, or returns,
   or hands to the function that trains it.
3. ``StepLR(opt, args.learning_rate_scheduler_step)`` stepped once per epoch: the setting's
   name is the scheduler's own "step size" with "learning rate" spelled out, as
   ``args.lr_scheduler_step`` would be, and says nothing about batches (LRD003 read the word
   "step" in it as a count of batches because "learning" and "rate" were not known as the
   two words of "lr"). Still reported: a name with a unit of its own
   (``learning_rate_warmup_steps``, ``learning_rate_scheduler_iter_step``).
"""

from __future__ import annotations

import textwrap

from .helpers import codes, findings

# -- 1. a scheduler stepped in an optimizer_step override --------------------------------------

SPEECH = """
import torch
import lightning as L
from transformers import get_linear_schedule_with_warmup
from torch.optim.lr_scheduler import StepLR


class Recognizer(L.LightningModule):
    def __init__(self, warmup):
        super().__init__()
        self.encoder = torch.nn.Linear(80, 32)
        self.warmup = warmup

    def training_step(self, batch, batch_idx):
        return self.encoder(batch).pow(2).mean()

{hook}
    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=3e-4)
        {build}
        return {returned}
"""

WARMUP = ("sched = get_linear_schedule_with_warmup(opt, num_warmup_steps=self.warmup, "
          "num_training_steps=self.trainer.estimated_stepping_batches)")
EPOCHS = "sched = StepLR(opt, step_size=20, gamma=0.5)"

UPDATE_HOOK = """
    def optimizer_step(self, epoch, batch_idx, optimizer, optimizer_closure):
        optimizer.step(closure=optimizer_closure)
        self.lr_schedulers().step()
"""
KEPT_HOOK = """
    def optimizer_step(self, *args, **kwargs):
        super().optimizer_step(*args, **kwargs)
        self.sched.step()
"""
NO_STEP_HOOK = """
    def optimizer_step(self, epoch, batch_idx, optimizer, optimizer_closure):
        optimizer.step(closure=optimizer_closure)
"""


def speech(hook: str, build: str = WARMUP, returned: str = "[opt], [sched]") -> str:
    return SPEECH.format(hook=hook, build=build, returned=returned)


def line_of(src: str, code: str) -> list[str]:
    lines = src.splitlines()
    return [lines[line - 1].strip() for c, line in findings(src) if c == code]


def test_warmup_stepped_in_optimizer_step_override_is_not_stepped_once_per_epoch() -> None:
    src = speech(UPDATE_HOOK)
    assert "LRD003" not in codes(src)
    # what is wrong: Lightning still steps it at the end of every epoch as well
    assert line_of(src, "LRD012") == ["self.lr_schedulers().step()"]


def test_warmup_kept_on_the_module_and_stepped_after_the_parent_optimizer_step() -> None:
    build = WARMUP.replace("sched =", "self.sched =")
    src = speech(KEPT_HOOK, build=build, returned="[opt], [self.sched]")
    assert "LRD003" not in codes(src)
    assert line_of(src, "LRD012") == ["self.sched.step()"]


def test_warmup_with_step_interval_stepped_again_in_optimizer_step_is_a_double_step() -> None:
    returned = '{"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}'
    src = speech(UPDATE_HOOK, returned=returned)
    assert "LRD003" not in codes(src)
    assert line_of(src, "LRD012") == ["self.lr_schedulers().step()"]


def test_control_override_that_does_not_step_the_scheduler_is_still_lrd003() -> None:
    assert "LRD003" in codes(speech(NO_STEP_HOOK))


def test_control_no_override_is_still_lrd003() -> None:
    assert "LRD003" in codes(speech(""))


def test_control_epoch_sized_scheduler_stepped_in_optimizer_step_is_lrd002() -> None:
    src = speech(UPDATE_HOOK, build=EPOCHS)
    assert line_of(src, "LRD002") == ["self.lr_schedulers().step()"]


def test_control_step_under_a_last_batch_test_is_still_once_per_epoch() -> None:
    hook = """
    def optimizer_step(self, epoch, batch_idx, optimizer, optimizer_closure):
        optimizer.step(closure=optimizer_closure)
        if self.trainer.is_last_batch:
            self.lr_schedulers().step()
"""
    assert "LRD003" in codes(speech(hook))


def test_control_manual_optimization_override_is_not_traced_as_lightnings_update() -> None:
    # in manual optimization Lightning never calls optimizer_step: the module's own
    # training_step steps what it steps, and a configured interval is not applied
    hook = """
    def on_fit_start(self):
        self.automatic_optimization = False

    def optimizer_step(self, epoch, batch_idx, optimizer, optimizer_closure):
        optimizer.step(closure=optimizer_closure)
        self.lr_schedulers().step()
"""
    assert "LRD012" not in codes(speech(hook))


# -- 2. a float16 copy made for saving, bound to a local name ------------------------------------

SAVER = """
import copy

import torch


class Tagger(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(16, 4)

    def forward(self, x):
        return self.proj(x)


def export(model, path):
{export}


def fit(model, batches):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    for step, (x, y) in enumerate(batches):
        loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if step % 1000 == 0:
            export(model, f"tagger-{{step}}.pt")


def main(batches):
    model = Tagger().cuda()
    fit(model, batches)
"""

SAVED_COPY = """
    model = copy.deepcopy(model).half()
    torch.save({"weights": model.state_dict()}, path)
"""


def saver(export: str) -> str:
    return SAVER.format(export=textwrap.indent(textwrap.dedent(export).strip("\n"), "    "))


def test_float16_copy_saved_in_its_own_function_is_not_the_trained_model() -> None:
    assert "LRD102" not in codes(saver(SAVED_COPY))


def test_float16_copy_moved_and_saved_under_a_loop_is_not_the_trained_model() -> None:
    export = """
    for device in ("cpu",):
        model = copy.deepcopy(model).half().to(device)
        torch.save(model.state_dict(), path)
"""
    assert "LRD102" not in codes(saver(export))


def test_control_in_place_cast_of_the_argument_is_still_lrd102() -> None:
    export = """
    model.half()
    torch.save(model.state_dict(), path)
"""
    assert "LRD102" in codes(saver(export))


def test_control_cast_copy_returned_to_the_trainer_is_still_lrd102() -> None:
    src = saver("return None") + """

def prepare(model):
    model = copy.deepcopy(model).half()
    return model


def run(batches):
    fit(prepare(Tagger().cuda()), batches)
"""
    assert "LRD102" in codes(src)


def test_control_cast_copy_handed_on_to_the_trainer_is_still_lrd102() -> None:
    src = saver("return None") + """

def run(batches):
    model = copy.deepcopy(Tagger()).half().cuda()
    fit(model, batches)
"""
    assert "LRD102" in codes(src)


def test_control_cast_copy_trained_in_the_same_function_is_still_lrd102() -> None:
    src = """
import copy
import torch


def tune(base, batches):
    model = copy.deepcopy(base).half()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    for x, y in batches:
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
"""
    assert "LRD102" in codes(src)


# -- 3. the scheduler's step size named with "learning rate" spelled out --------------------------

FORECASTER = """
import argparse

import torch
from torch.optim.lr_scheduler import StepLR

parser = argparse.ArgumentParser()
parser.add_argument("--{name}", type=int)
parser.add_argument("--decay", type=float, default=0.5)


class LoadForecaster:
    def __init__(self, args, net):
        self.args = args
        self.net = net
        self.optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
        self.scheduler = StepLR(self.optimizer, self.args.{name}, self.args.decay)

    def fit(self, loader, epochs):
        for epoch in range(epochs):
            for window, target in loader:
                loss = torch.nn.functional.l1_loss(self.net(window), target)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            self.scheduler.step()


LoadForecaster(parser.parse_args(), torch.nn.Linear(24, 1)).fit([], 30)
"""


def test_step_size_named_learning_rate_scheduler_step_is_not_counted_in_batches() -> None:
    assert "LRD003" not in codes(FORECASTER.format(name="learning_rate_scheduler_step"))
    assert "LRD003" not in codes(FORECASTER.format(name="learning_rate_step_size"))


def test_control_step_size_named_after_warmup_steps_is_still_lrd003() -> None:
    assert "LRD003" in codes(FORECASTER.format(name="learning_rate_warmup_steps"))
    assert "LRD003" in codes(FORECASTER.format(name="learning_rate_scheduler_iter_step"))
