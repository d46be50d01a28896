"""Two gaps noted by rcnew48 and rcnew49 (bench/realcode/README.md).

Programs written for these tests; no third-party code.

1. A GradScaler switched by comparing a method's own parameter (``def setup(self,
   precision): self.scaler = GradScaler(enabled=precision != "fp32")``) was read as never
   scaling, because a bare name compared with a literal may be a dtype picked from the
   hardware. A parameter that the function never rebinds is a setting its caller hands in,
   known only at run time, as ``self.precision`` is: a scheduler stepped after
   ``scaler.step`` whatever the scaler skipped is LRD005 when the comparison holds.
2. LRD007 said the schedule "restarts from its first value". With the optimizer's state
   restored, a StepLR or MultiStepLR keeps the LR it reached (it lives in the optimizer's
   param groups); only its step count restarts, so the decays come late and a MultiStepLR
   decays again at milestones already passed. The message now says so for those two.
"""

from __future__ import annotations

import pytest

from .helpers import codes, messages

# 1. the scaler switched by a parameter ---------------------------------------------------

LEARNER = """
import torch


class Learner:
    def __init__(self, net, batches):
        self.net = net
        self.batches = batches

    def setup(self, precision="fp32"):
{rebind}        self.opt = torch.optim.AdamW(self.net.parameters(), lr=1e-3)
        self.sched = torch.optim.lr_scheduler.LambdaLR(
            self.opt, lambda s: min(1.0, (s + 1) / 500))
        self.precision = precision
        self.scaler = torch.amp.GradScaler("cuda", enabled={enabled})

    def fit(self):
        for inputs, targets in self.batches:
            self.opt.zero_grad()
            with torch.autocast("cuda", enabled=self.precision != "fp32"):
                loss = torch.nn.functional.mse_loss(self.net(inputs), targets)
            self.scaler.scale(loss).backward()
            self.scaler.step(self.opt)
{sched_step}
"""

UNGUARDED = """            self.scaler.update()
            self.sched.step()"""
GUARDED = """            scale = self.scaler.get_scale()
            self.scaler.update()
            if self.scaler.get_scale() >= scale:
                self.sched.step()"""


def learner(enabled: str, sched_step: str = UNGUARDED, rebind: str = "") -> str:
    return LEARNER.format(enabled=enabled, sched_step=sched_step, rebind=rebind)


@pytest.mark.parametrize("enabled", ['precision != "fp32"', 'precision == "fp16"',
                                     'precision in ("fp16", "16-mixed")'])
def test_scaler_switched_by_the_methods_parameter_is_reported(enabled: str) -> None:
    source = learner(enabled)
    assert codes(source) == ["LRD005"]
    # switched at run time: the message names the condition, as for `self.precision`
    assert messages(source)[0].startswith(f"When `{enabled}".replace('"', "'"))


def test_parameter_and_attribute_spellings_report_alike() -> None:
    by_parameter = messages(learner('precision != "fp32"'))
    by_attribute = messages(learner('self.precision != "fp32"'))
    assert len(by_parameter) == len(by_attribute) == 1
    assert by_parameter[0].replace("`precision", "`self.precision") == by_attribute[0]


def test_scheduler_step_guarded_by_the_scale_is_silent() -> None:
    assert codes(learner('precision != "fp32"', sched_step=GUARDED)) == []


def test_parameter_rebound_from_the_hardware_stays_unknown() -> None:
    rebind = ('        precision = "bf16" if torch.cuda.is_bf16_supported() '
              'else "fp16"\n')
    assert codes(learner('precision == "fp16"', rebind=rebind)) == []


def test_local_name_compared_stays_unknown() -> None:
    # a module-level dtype picked from the hardware is no parameter: unknown, as before
    source = learner('DTYPE == "fp16"').replace(
        "\n\nclass Learner", '\nDTYPE = "bf16" if torch.cuda.is_bf16_supported() else "fp16"\n'
        "\n\nclass Learner")
    assert codes(source) == []


# 2. what a resume without the scheduler's state does ---------------------------------------

RESUMABLE = """
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--resume", default="")
parser.add_argument("--epochs", type=int, default=90)
args = parser.parse_args()

model = torch.nn.Linear(8, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = {scheduler}
loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(torch.randn(64, 8), torch.randint(0, 2, (64,))),
    batch_size=8)
start_epoch = 0
if args.resume:
    ckpt = torch.load(args.resume)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
{restore}    start_epoch = ckpt["epoch"] + 1

for epoch in range(start_epoch, args.epochs):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
    scheduler.step()
    torch.save({{"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                {saved}"epoch": epoch}}, "ckpt.pt")
"""

STEP = "torch.optim.lr_scheduler.StepLR(optimizer, step_size=30, gamma=0.1)"
MULTISTEP = "torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[30, 60], gamma=0.1)"
COSINE = "torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)"


def resumable(scheduler: str, restore: str = "", saved: str = "") -> str:
    return RESUMABLE.format(scheduler=scheduler, restore=restore, saved=saved)


def test_steplr_lost_on_resume_says_the_decays_come_late() -> None:
    found = messages(resumable(STEP))
    assert len(found) == 2  # the checkpoint without it, and the resume without it
    for message in found:
        assert "first value" not in message
        assert "StepLR's step count restarts at 0" in message
        assert "up to `step_size` (`30`) steps late" in message


def test_multisteplr_lost_on_resume_says_milestones_count_again() -> None:
    found = messages(resumable(MULTISTEP))
    assert len(found) == 2
    for message in found:
        assert "first value" not in message
        assert "milestones (`[30, 60]`) are counted again" in message
        assert "decay the LR again" in message


def test_cosine_lost_on_resume_says_a_new_cosine_starts_from_the_restored_lr() -> None:
    # torch's CosineAnnealingLR is chainable: rebuilt at step 0 it keeps the restored LR and
    # bends a new cosine from it (tests/test_resume_effects.py checks that against torch)
    found = messages(resumable(COSINE))
    assert len(found) == 2
    for message in found:
        assert "first value" not in message
        assert "new cosine from that LR" in message
        assert "`T_max` (`args.epochs`) steps again" in message


@pytest.mark.parametrize("scheduler", [STEP, MULTISTEP])
def test_scheduler_saved_and_restored_is_silent(scheduler: str) -> None:
    source = resumable(scheduler, restore='    scheduler.load_state_dict(ckpt["scheduler"])\n',
                       saved='"scheduler": scheduler.state_dict(), ')
    assert codes(source) == []
