"""False alarms found by checking whole unseen repositories (fphunt43: Kaggle solutions,
BERT-era NER, person re-identification, super-resolution), each fixed by the semantics it got
wrong, next to a buggy twin that must still be reported.

1. A plot of a schedule that calls ``optimizer.step()`` only to keep PyTorch's order warning
   quiet: nothing in the program computes a gradient, so no update uses any LR value and
   stepping the scheduler first skips none (LRD001). A twin that trains in the same loop is
   still LRD001.
2. A helper handed the scheduler steps it after every update under ``if scheduler is not
   None:``, and the epoch loop steps it again: the test only asks whether the scheduler
   exists, so the helper steps it on every batch, and the finding is the double step
   (LRD012), not a schedule stepped once per epoch (LRD003). A helper whose step is guarded
   by a setting of its own is still a choice.
3. A warm-up scheduler built inside the epoch loop on the passes that use it and stepped only
   on those passes (``if epoch == 0: warm = ...``, ``if epoch == 0: warm.step()``) lives one
   pass; the checkpoint written at the end of the pass has nothing of it to keep (LRD007).
   One built on the first pass and stepped on every pass is still missing from it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.check.helpers import check_project, codes, messages, project_codes

# -- 1. an LR plot stepping an optimizer that has no gradients -------------------------------

PLOT = """
import torch
from torch.optim import lr_scheduler

epochs_seen, rates = [], []
layer = torch.nn.Linear(8, 8)
opt = torch.optim.SGD(layer.parameters(), lr=0.05)
sched = lr_scheduler.{cls}
for epoch in range(90):
    sched.step()
    for _ in range(4):
        epochs_seen.append(epoch)
        rates.append(opt.param_groups[0]["lr"])
        opt.step()
"""

TRAINED = """
import torch
from torch.optim import lr_scheduler

def fit(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    sched = lr_scheduler.{cls}
    for epoch in range(90):
        sched.step()
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
"""

CLASSES = {
    "cosine": "CosineAnnealingLR(opt, T_max=90, eta_min=1e-6)",
    "multistep": "MultiStepLR(opt, milestones=[30, 60], gamma=0.1)",
    "lambda": "LambdaLR(opt, lambda e: 0.5 ** (e // 30))",
}


@pytest.mark.parametrize("cls", sorted(CLASSES))
def test_schedule_plot_stepping_an_optimizer_without_gradients_is_not_lrd001(cls: str) -> None:
    assert codes(PLOT.format(cls=CLASSES[cls])) == []


@pytest.mark.parametrize("cls", sorted(CLASSES))
def test_the_same_order_in_a_loop_that_trains_is_still_lrd001(cls: str) -> None:
    assert codes(TRAINED.format(cls=CLASSES[cls])) == ["LRD001"]


def test_plot_loop_in_a_program_that_trains_elsewhere_is_still_lrd001() -> None:
    # the loop calls the model: gradients exist, the update is real
    source = """
    import torch

    def fit(model, batches):
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10)
        for epoch in range(30):
            sched.step()
            for x in batches:
                model(x).sum().backward()
                opt.step()
                opt.zero_grad()
    """
    assert codes(source) == ["LRD001"]


# -- 2. an existence guard on the helper's per-batch step ------------------------------------

HELPER = """
import torch.nn.functional as F


def run_epoch(model, loader, optimizer, clip, logger=None, epoch=None, scheduler=None):
    model.train()
    for inputs, labels in loader:
        optimizer.zero_grad()
        F.cross_entropy(model(inputs), labels).backward()
        optimizer.step()
        {guard}
            scheduler.step()
"""

DRIVER = """
import torch
from transformers import get_linear_schedule_with_warmup
from loop import run_epoch


def main(model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-5)
    total = len(loader) * epochs
    scheduler = get_linear_schedule_with_warmup(optimizer, int(0.1 * total), total)
    for epoch in range(epochs):
        run_epoch(model, loader, optimizer, 1.0, None, epoch, {passed})
        scheduler.step()
"""


@pytest.mark.parametrize("guard", ["if scheduler is not None:", "if scheduler:"])
@pytest.mark.parametrize("passed", ["scheduler", "scheduler=scheduler"])
def test_existence_guarded_step_in_a_helper_plus_an_epoch_step_is_the_double_step(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, guard: str, passed: str) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "loop.py": HELPER.replace("{guard}", guard),
        "main.py": DRIVER.replace("{passed}", passed),
    })
    assert project_codes(found) == ["LRD012"]
    assert found[0][0] == "main.py"


def test_double_step_message_names_the_helper_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from lrdoctor.catalog import CATALOG
    from lrdoctor.check.runner import check_files

    check_project(tmp_path, monkeypatch, {
        "loop.py": HELPER.replace("{guard}", "if scheduler is not None:"),
        "main.py": DRIVER.replace("{passed}", "scheduler"),
    })
    report = check_files(["loop.py", "main.py"], frozenset(CATALOG), jobs=1)
    (diag,) = [d for d in report.diagnostics if d.code == "LRD012"]
    assert "loop.py:" in diag.message


def test_helper_step_guarded_by_a_setting_of_its_own_is_still_a_choice(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # stepped per batch only when a flag says so: the epoch step alone is what the default
    # run does, and it steps a batch-sized warm-up once per epoch
    helper = HELPER.replace("{guard}", "if per_batch:").replace(
        "scheduler=None):", "scheduler=None, per_batch=False):")
    found = check_project(tmp_path, monkeypatch, {
        "loop.py": helper,
        "main.py": DRIVER.replace("{passed}", "scheduler"),
    })
    assert project_codes(found) == ["LRD003"]


# -- 3. a warm-up that lives one pass of the loop that writes the checkpoint -----------------

WARMUP = """
import torch


def linear_warmup(optimizer, iters, start):
    def factor(i):
        if i >= iters:
            return 1.0
        frac = i / iters
        return start * (1 - frac) + frac
    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)


def train(model, loader, epochs, out, warm=True):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
    decay = torch.optim.lr_scheduler.MultiStepLR(optimizer, [8, 11])
    for epoch in range(epochs):
        {build}
        for images, targets in loader:
            loss = model(images, targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            {step}
        decay.step()
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "decay": decay.state_dict(), "epoch": epoch}, out)
"""

ONE_PASS = {
    "first_epoch_helper": (
        "if epoch == 0 and warm:\n            ramp = linear_warmup(optimizer, len(loader), 1e-3)",
        "if epoch == 0 and warm:\n                ramp.step()"),
    "every_pass_inline": (
        "ramp = torch.optim.lr_scheduler.LinearLR(optimizer, 0.1, total_iters=len(loader))",
        "ramp.step()"),
}


@pytest.mark.parametrize("shape", sorted(ONE_PASS))
def test_warmup_built_and_stepped_on_the_same_passes_is_not_missing_from_the_checkpoint(
        shape: str) -> None:
    build, step = ONE_PASS[shape]
    found = codes(WARMUP.replace("{build}", build).replace("{step}", step))
    assert "LRD007" not in found


def test_warmup_built_on_the_first_pass_and_stepped_on_every_pass_is_still_lrd007() -> None:
    build = "if epoch == 0:\n            ramp = linear_warmup(optimizer, 5 * len(loader), 1e-3)"
    source = WARMUP.replace("{build}", build).replace("{step}", "ramp.step()")
    assert "LRD007" in codes(source)
    assert any("`ramp`" in m for m in messages(source))


def test_warmup_saved_inside_the_batch_loop_is_still_lrd007() -> None:
    source = """
    import torch

    def train(model, loader, epochs, out):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.02)
        for epoch in range(epochs):
            ramp = torch.optim.lr_scheduler.LinearLR(optimizer, 0.1, total_iters=len(loader))
            for step, (x, y) in enumerate(loader):
                optimizer.zero_grad()
                model(x, y).backward()
                optimizer.step()
                ramp.step()
                if step % 500 == 0:
                    torch.save({"model": model.state_dict(),
                                "optimizer": optimizer.state_dict()}, out)
    """
    assert "LRD007" in codes(source)


def test_plot_over_tqdm_of_a_range_with_get_last_lr_is_not_lrd001() -> None:
    source = """
    import torch
    from tqdm import tqdm

    def curve(steps=1000):
        w = torch.nn.Parameter(torch.zeros(3))
        opt = torch.optim.AdamW([w], lr=3e-4)
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-4, total_steps=steps)
        values = []
        for _ in tqdm(range(steps - 1)):
            sched.step()
            opt.step()
            values.append(sched.get_last_lr()[0])
        return values
    """
    assert codes(source) == []


TRAINER = """
import os.path as osp
import torch


def ramp_up(optimizer, iters, start):
    return torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda i: 1.0 if i >= iters else start + (1 - start) * i / iters)


class Trainer:
    def __init__(self, args, model, loader, optimizer, lr_scheduler):
        self.args = args
        self.model = model
        self.loader = loader
        self.optimizer = optimizer
        self.lr_scheduler = lr_scheduler

    def run(self):
        for epoch in range(self.args.start_epoch, self.args.epochs):
            if epoch == 1 and self.args.warm_up:
                ramp = ramp_up(self.optimizer, len(self.loader) - 1, 1e-3)
            for images, targets in self.loader:
                loss = self.model(images, targets)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                if epoch == 1 and self.args.warm_up:
                    ramp.step()
            self.lr_scheduler.step()
            torch.save({"epoch": epoch, "model": self.model.state_dict(),
                        "optimizer": self.optimizer.state_dict(),
                        "lr_scheduler": self.lr_scheduler.state_dict()},
                       osp.join(self.args.path, "last.pth"))


def main(args, model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.003, momentum=0.9)
    lr_scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, [16], gamma=0.1)
    Trainer(args, model, loader, optimizer, lr_scheduler).run()
"""


def test_trainer_method_warmup_for_one_pass_is_not_missing_from_the_checkpoint() -> None:
    assert "LRD007" not in codes(TRAINER)


def test_trainer_that_leaves_out_its_epoch_scheduler_is_still_lrd007() -> None:
    source = TRAINER.replace(',\n                        "lr_scheduler": self.lr_scheduler.state_dict()}',
                             "}")
    assert "lr_scheduler.state_dict()" not in source
    assert "LRD007" in codes(source)
