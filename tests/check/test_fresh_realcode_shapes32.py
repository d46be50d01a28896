"""Shapes met in the fresh real-code batch "fresh-2026-12zl" of issue 7 (bench/realcode, dev
half): a scheduler chosen by a flag between a ReduceLROnPlateau and another schedule, stepped
with the validation metric on one branch of a test on that flag and without an argument on
the other. Each test is the general shape in our own words, next to the controls that must
still be reported (a test on another flag, the dispatch the wrong way round, a copy rebound)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.check.helpers import check_project, codes, findings

# -- the step call picked by the flag that picked the scheduler -----------------------------
# `if args.plateau: s = ReduceLROnPlateau(...) else: s = StepLR(...)`, then at the end of the
# epoch `if args.plateau: s.step(val_loss) else: s.step()`. The argument only ever reaches
# the plateau (its metric); the StepLR is stepped without one. No deprecated epoch.

_FLAG = """
import argparse
import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau, StepLR

parser = argparse.ArgumentParser()
parser.add_argument("--plateau", action="store_true")
args = parser.parse_args()

net = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
if args.plateau:
    sched = ReduceLROnPlateau(opt, mode="min")
else:
    sched = StepLR(opt, step_size=10)
data = torch.utils.data.DataLoader(torch.randn(16, 4), batch_size=4)
for epoch in range(30):
    for x in data:
        opt.zero_grad()
        net(x).mean().backward()
        opt.step()
    val_loss = float(net(torch.randn(4, 4)).mean())
{TAIL}
"""

_DISPATCHED = """\
    if args.plateau:
        sched.step(val_loss)
    else:
        sched.step()
"""


def test_metric_step_on_the_plateau_branch_of_the_choosing_flag_is_silent() -> None:
    assert "LRD006" not in codes(_FLAG.replace("{TAIL}", _DISPATCHED))


def test_the_same_dispatch_on_a_negated_test_is_silent() -> None:
    tail = """\
    if not args.plateau:
        sched.step()
    else:
        sched.step(val_loss)
"""
    assert "LRD006" not in codes(_FLAG.replace("{TAIL}", tail))


def test_dispatch_the_wrong_way_round_is_reported() -> None:
    # the flag that built the StepLR is False on the branch that passes the value: the StepLR
    # gets it as an epoch
    tail = """\
    if args.plateau:
        sched.step()
    else:
        sched.step(val_loss)
"""
    got = findings(_FLAG.replace("{TAIL}", tail))
    assert ("LRD006", 26) in got


def test_an_unguarded_metric_step_is_still_reported_for_the_other_scheduler() -> None:
    got = findings(_FLAG.replace("{TAIL}", "    sched.step(val_loss)\n"))
    assert ("LRD006", 23) in got


def test_a_metric_step_under_a_flag_that_did_not_choose_the_scheduler_is_reported() -> None:
    # `args.use_metric` says nothing of which scheduler was built: with `--use_metric` and no
    # `--plateau` the StepLR gets the loss as an epoch
    src = _FLAG.replace("{TAIL}", _DISPATCHED.replace("if args.plateau", "if args.use_metric"))
    src = src.replace('parser.add_argument("--plateau", action="store_true")',
                      'parser.add_argument("--plateau", action="store_true")\n'
                      'parser.add_argument("--use_metric", action="store_true")')
    assert ("LRD006", 25) in findings(src)


def test_an_epoch_under_a_flag_of_its_own_is_still_reported() -> None:
    # one StepLR, no plateau anywhere: `if args.explicit: s.step(epoch + 1) else: s.step()`
    src = """
    import argparse
    import torch
    from torch.optim.lr_scheduler import StepLR

    parser = argparse.ArgumentParser()
    parser.add_argument("--explicit", action="store_true")
    args = parser.parse_args()
    net = torch.nn.Linear(4, 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=10)
    for epoch in range(30):
        for _ in range(5):
            opt.step()
        if args.explicit:
            sched.step(epoch + 1)
        else:
            sched.step()
    """
    assert ("LRD006", 16) in findings(src)


# -- the same, in a trainer class whose flag is a constructor argument kept on the instance ---
# `__init__(self, ..., warmup_steps=0)` builds a per-batch linear warm-up when warmup_steps > 0
# and a ReduceLROnPlateau (mode "max" for an F1 score) otherwise, and keeps
# `self.warmup_steps = warmup_steps`; the loop steps the warm-up after every batch under
# `if self.warmup_steps > 0:` and the plateau with the validation score under
# `if not self.warmup_steps > 0:`. The test in the loop reads the attribute, the one in the
# constructor the argument: the two step calls are apart, and the call with the score is the
# plateau's.

_TRAINER = """
import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau
from transformers import get_linear_schedule_with_warmup


class Trainer:
    def __init__(self, model, loader, epochs, warmup_steps=0):
        self.model = model
        self.loader = loader
        self.epochs = epochs
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        self.warmup_steps = warmup_steps
        if warmup_steps > 0:
            total = len(loader) * epochs
            self.scheduler = get_linear_schedule_with_warmup(self.optimizer, warmup_steps, total)
        else:
            self.scheduler = ReduceLROnPlateau(self.optimizer, mode="max", patience=1)

    def fit(self):
        for epoch in range(self.epochs):
            for x in self.loader:
                self.model(x).mean().backward()
                self.optimizer.step()
                if self.warmup_steps > 0:
                    self.scheduler.step()
                self.optimizer.zero_grad()
            score = self.evaluate()
            {EPOCH_END}

    def evaluate(self):
        return 0.5


if __name__ == "__main__":
    data = torch.utils.data.DataLoader(torch.randn(12, 4), batch_size=4)
    Trainer(torch.nn.Linear(4, 1), data, 3).fit()
"""


def test_trainer_attribute_flag_dispatch_is_silent() -> None:
    src = _TRAINER.replace("{EPOCH_END}", "if not self.warmup_steps > 0:\n"
                                          "                self.scheduler.step(score)")
    assert "LRD006" not in codes(src)


def test_trainer_dispatch_the_wrong_way_round_is_reported() -> None:
    # the copy of the argument tested the way that built the warm-up: it gets the score
    src = _TRAINER.replace("{EPOCH_END}", "if self.warmup_steps > 0:\n"
                                          "                self.scheduler.step(score)")
    assert ("LRD006", 30) in findings(src)


def test_trainer_attribute_rebound_in_the_loop_is_not_read_as_the_argument() -> None:
    # `self.warmup_steps = 0` in the loop's method: the attribute no longer holds the argument
    src = _TRAINER.replace("for epoch in range(self.epochs):",
                           "self.warmup_steps = 0\n        for epoch in range(self.epochs):")
    src = src.replace("{EPOCH_END}", "if not self.warmup_steps > 0:\n"
                                     "                self.scheduler.step(score)")
    assert "LRD006" in codes(src)


def test_trainer_metric_step_without_the_guard_is_reported() -> None:
    # every epoch, whichever scheduler was built: the warm-up gets the score as an epoch
    src = _TRAINER.replace("{EPOCH_END}", "self.scheduler.step(score)")
    assert ("LRD006", 29) in findings(src)


def test_framework_split_across_modules_is_silent(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # the base class of a small framework builds the scheduler from its constructor argument;
    # a subclass in another module runs the loop and dispatches the step on the attribute
    files = {
        "framework/__init__.py": "",
        "framework/base.py": """
            import torch
            from torch import optim
            from transformers import get_linear_schedule_with_warmup


            class Base(torch.nn.Module):
                def __init__(self, model, loader, max_epoch, warmup_step=0):
                    super().__init__()
                    self.model = model
                    self.loader = loader
                    self.max_epoch = max_epoch
                    self.optimizer = optim.AdamW(model.parameters(), lr=3e-5)
                    self.warmup_step = warmup_step
                    if warmup_step > 0:
                        steps = len(loader) * max_epoch
                        self.scheduler = get_linear_schedule_with_warmup(
                            self.optimizer, num_warmup_steps=warmup_step,
                            num_training_steps=steps)
                    else:
                        self.scheduler = optim.lr_scheduler.ReduceLROnPlateau(
                            self.optimizer, mode="max", factor=0.8, patience=1)
        """,
        "framework/tagger.py": """
            from .base import Base


            class Tagger(Base):
                def train_model(self):
                    for epoch in range(self.max_epoch):
                        for batch in self.loader:
                            loss = self.model(batch).mean()
                            loss.backward()
                            self.optimizer.step()
                            if self.warmup_step > 0:
                                self.scheduler.step()
                            self.optimizer.zero_grad()
                        f1 = self.evaluate()
                        if not self.warmup_step > 0:
                            self.scheduler.step(f1)

                def evaluate(self):
                    return 0.0
        """,
        "train.py": """
            import torch
            from framework.tagger import Tagger

            data = torch.utils.data.DataLoader(torch.randn(12, 4), batch_size=4)
            Tagger(torch.nn.Linear(4, 1), data, 3).train_model()
        """,
    }
    got = check_project(tmp_path, monkeypatch, files)
    assert not [f for f in got if f[2] == "LRD006"]
