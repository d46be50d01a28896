"""A trainer class driven from module-level code, in a script or a notebook (devmiss20).

Programs written for these tests; no third-party code.

The same Trainer class is driven three ways: from ``main()`` (``if __name__ ==
"__main__": main()``), from the module's top level (``trainer = Trainer(...);
trainer.train()``, no ``main``), and from a notebook cell after the cell that defines the
class. Every rule family reports the same in all three. LRD102 did not: it asks whether a
float16 cast comes after training (an fp16 copy exported when training is over), and at a
module's top level the ``class Trainer:`` statement before the cast counted as training (the
step lines sit inside its body) while ``trainer.train()`` after it did not (a method call),
so the cast of the model the trainer's Adam updates read as an export. Defining a class or
function runs none of its steps, and a call of a method that steps (here or in a project
module, itself or through ``self.train_epoch()``) trains.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from .helpers import check_project, codes, notebook, project_codes

TRAINER = """
import torch
from torch import nn


class Trainer:
    def __init__(self, model, loader, epochs=10):
        self.model = model
        self.loader = loader
        self.epochs = epochs
        self.opt = torch.optim.{opt}
        self.sched = {sched}
        self.scaler = torch.amp.GradScaler("cuda")

    def train(self):
        for epoch in range(self.epochs):
            self.train_epoch()
{epoch_step}
            self.save(epoch)

    def train_epoch(self):
{top}        for i, x in enumerate(self.loader):
            self.opt.zero_grad()
            with torch.autocast("cuda", dtype=torch.float16):
                loss = self.model(x.cuda()).sum()
            self.scaler.scale(loss).backward()
{update}
{batch_step}

    def save(self, epoch):
        torch.save({{"model": self.model.state_dict(), "opt": self.opt.state_dict(),
                    {saved}"epoch": epoch}}, "ckpt.pt")
"""

UPDATE = """            self.scaler.step(self.opt)
            self.scaler.update()"""
ACCUMULATED = """            if (i + 1) % 4 == 0:
                self.scaler.step(self.opt)
                self.scaler.update()"""
ONECYCLE = "torch.optim.lr_scheduler.OneCycleLR(self.opt, max_lr=0.1, total_steps=epochs * len(loader))"
CORRECT = {
    "opt": "SGD(self.model.parameters(), lr=0.1)",
    "sched": "torch.optim.lr_scheduler.StepLR(self.opt, step_size=3)",
    "top": "", "update": UPDATE, "batch_step": "", "epoch_step": "            self.sched.step()",
    "saved": '"sched": self.sched.state_dict(), "scaler": self.scaler.state_dict(), ',
}
# each rule family's bug, as a change of the correct trainer
BUGS = {
    "LRD001": {"top": "        self.sched.step()\n", "epoch_step": ""},
    "LRD002": {"batch_step": "            self.sched.step()", "epoch_step": ""},
    "LRD003": {"sched": ONECYCLE},
    "LRD004": {"sched": "torch.optim.lr_scheduler.ReduceLROnPlateau(self.opt)"},
    "LRD005": {"sched": ONECYCLE, "batch_step": "            self.sched.step()",
               "epoch_step": ""},
    "LRD006": {"epoch_step": "            self.sched.step(epoch)"},
    "LRD007": {"saved": '"sched": self.sched.state_dict(), '},
    "LRD017": {"sched": "torch.optim.lr_scheduler.LinearLR(self.opt, 1.0, 0.01, "
                        "total_iters=epochs * len(loader) // 4)",
               "update": ACCUMULATED, "batch_step": "            self.sched.step()",
               "epoch_step": ""},
    "LRD102": {"opt": "Adam(self.model.parameters(), lr=1e-3, eps=1e-8)"},
}

DRIVE = """
model = nn.Linear(4, 2).cuda(){cast}
loader = torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=8)
trainer = Trainer(model, loader, epochs=10)
trainer.train()
{after}"""


def trainer(bug: str) -> str:
    fields = dict(CORRECT)
    fields.update(BUGS.get(bug, {}))
    return TRAINER.format(**fields)


def drive(bug: str, after: str = "") -> str:
    # the LRD102 bug is the model cast to float16 before its Adam trains it; after it (an
    # export), the same Adam is correct
    return DRIVE.format(cast=".half()" if bug == "LRD102" and not after else "", after=after)


def driven(bug: str, how: str, after: str = "") -> str:
    code = drive(bug, after)
    if how == "main":
        return trainer(bug) + "\n\ndef main():" + textwrap.indent(code, "    ") \
            + '\n\nif __name__ == "__main__":\n    main()\n'
    return trainer(bug) + "\n" + code


def reported(bug: str, how: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
             after: str = "") -> set[str]:
    if how == "notebook":
        files = {"train.ipynb": notebook(trainer(bug), drive(bug, after))}
        return set(project_codes(check_project(tmp_path, monkeypatch, files))) - {"LRD101"}
    return set(codes(driven(bug, how, after))) - {"LRD101"}


DRIVINGS = ["main", "module", "notebook"]


@pytest.mark.parametrize("how", DRIVINGS)
@pytest.mark.parametrize("bug", sorted(BUGS))
def test_every_rule_reports_the_trainer_however_it_is_driven(
        bug: str, how: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert bug in reported(bug, how, tmp_path, monkeypatch)


@pytest.mark.parametrize("how", DRIVINGS)
def test_correct_trainer_is_silent_however_it_is_driven(
        how: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert reported("", how, tmp_path, monkeypatch) == set()


EXPORT = 'model.half()\ntorch.save(model.state_dict(), "model_fp16.pt")\n'


@pytest.mark.parametrize("how", DRIVINGS)
def test_float16_export_after_the_trainer_ran_is_silent(
        how: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the Adam of the trainer updates float32 parameters; the cast after `trainer.train()`
    # makes an fp16 copy when training is over (main() drove it: main reported LRD102)
    found = reported("LRD102", how, tmp_path, monkeypatch, after=EXPORT)
    assert "LRD102" not in found


# the trainer in a project module, the driver a module-level script -------------------------

DRIVER_MODULE = """
import torch
from torch import nn

from trainer import Trainer

model = nn.Linear(4, 2).cuda()
loader = torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=8)
opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-8)
trainer = Trainer(model, loader, opt)
trainer.fit()
{after}"""

TRAINER_MODULE = """
import torch


class Trainer:
    def __init__(self, model, loader, opt):
        self.model, self.loader, self.opt = model, loader, opt

    def fit(self):
        for epoch in range(10):
            self.run_epoch()

    def run_epoch(self):
        for x in self.loader:
            self.opt.zero_grad()
            self.model(x.cuda()).sum().backward()
            self.opt.step()
"""


@pytest.mark.parametrize(("where", "is_reported"), [("before", True), ("after", False)])
def test_cast_before_or_after_an_imported_trainer_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str, is_reported: bool) -> None:
    driver = DRIVER_MODULE.format(after=EXPORT if where == "after" else "")
    if where == "before":
        driver = driver.replace("nn.Linear(4, 2).cuda()", "nn.Linear(4, 2).cuda().half()")
    found = check_project(tmp_path, monkeypatch, {"trainer.py": TRAINER_MODULE,
                                                  "train.py": driver})
    assert ("LRD102" in project_codes(found)) is is_reported
