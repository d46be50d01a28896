"""False alarm of the lead's HuBMAP scan (session 42, FPHUNT.md lead67e), fixed in session 43.

Programs written for these tests; no third-party code.

A LightningModule keeps a constructor parameter named in steps (``restart_steps``) and builds
``CosineAnnealingWarmRestarts(T_0=self.restart_steps)`` returned with ``"interval": "epoch"``.
The driver computes the value from the epoch count (``epochs // periods``, or 0 on another
branch to switch the schedule off) and hands it to the constructor: the restarts are counted in
epochs and stepping per epoch is right. The attribute's word ("steps") had decided the unit,
both in the class's own trace (its parameter unknown) and in the driver's (which keeps one
branch's value). Now what the class's constructions fill the parameter with decides (in its
module and in the project modules that call it), as an assignment's value outranks a name's word; a value computed from ``len(loader)`` is still
reported, and so is a class no call in view constructs.

Also fixed: the scheduler an LRD007 names (fphunt42, jgcb00/nanoGPT). A checkpoint keeps the
optimizers' states as a list comprehension and no scheduler; the program's schedulers are a list
of LambdaLR stepped in a ``zip`` loop (known by name only) and, inside a project optimizer
class, a CosineAnnealingLR on a private SGD used as a calculator, never stepped as an optimizer.
The message named the calculator; it now names a scheduler of an optimizer that takes updates.

And from the lead's session-43 scan (HephyAnalysisSW/ML-pytorch): ``LinearLR(optimizer,
start_factor=1, end_factor=1, total_iters=n_epochs)`` written as "no scheduler" and stepped after
every batch was an LRD002 error. Every position of that schedule has the same LR, so how often it
is stepped changes nothing; LRD002 and LRD003 now leave constant torch schedules alone, as
LRD001, LRD005, LRD007, LRD015 and LRD017 already did. The same scan showed the miss behind it:
the option the setting picks by name (`--scheduler linear+flat 0.1`, a real per-batch LinearLR
sized in epochs) was built in one of two ``if`` statements without ``else`` that test the same
setting against different strings, and only the last ``if``'s scheduler was kept for the name.
Now the name holds the choice of both (as an ``if``/``elif`` chain's does), also when an outer
``else`` builds a third, and when a later ``if`` on the opposite flag (``is None``) rebuilds
the default.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, messages

MODULE = '''
import argparse
import torch
import pytorch_lightning as pl


class Module(pl.LightningModule):
    def __init__(self, lr: float, restart_steps: int = 0):
        super().__init__()
        self.lr = lr
        self.net = torch.nn.Linear(4, 1)
        self.restart_steps = restart_steps

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.mse_loss(self.net(x), y)

    def configure_optimizers(self):
        optimizer = torch.optim.Adam(self.net.parameters(), lr=self.lr)
        if self.restart_steps == 0:
            return optimizer
        scheduler = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(
            optimizer, T_0=self.restart_steps)
        return {"optimizer": optimizer,
                "lr_scheduler": {"scheduler": scheduler, "interval": "epoch"}}
'''

DRIVER = '''

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--periods", type=int, default=3)
    args = parser.parse_args()
    loader = torch.utils.data.DataLoader(list(range(64)), batch_size=8)
{compute}
    model = Module({arguments})
    trainer = pl.Trainer(max_epochs=args.epochs)
    trainer.fit(model, loader)


if __name__ == "__main__":
    main()
'''

TWO_BRANCHES = '''    if args.periods:
        restart_steps = {value}
    else:
        restart_steps = 0'''


def program(compute: str, arguments: str = "1e-3, restart_steps=restart_steps") -> str:
    return MODULE + DRIVER.format(compute=compute, arguments=arguments)


@pytest.mark.parametrize("compute,arguments", [
    (TWO_BRANCHES.format(value="args.epochs // args.periods"),
     "lr=1e-3, restart_steps=restart_steps"),
    ("    restart_steps = args.epochs // args.periods", "1e-3, restart_steps"),
    ("    pass", "1e-3, restart_steps=args.epochs // 3"),
])
def test_restarts_counted_in_epochs_by_the_constructions_are_silent(compute: str,
                                                                    arguments: str) -> None:
    assert "LRD003" not in codes(program(compute, arguments))


@pytest.mark.parametrize("compute,arguments", [
    # computed from the loader's length: batches, stepped per epoch
    (TWO_BRANCHES.format(value="args.epochs * len(loader) // args.periods"),
     "lr=1e-3, restart_steps=restart_steps"),
    # constructed twice, once in batches: the word decides, as before
    ("    restart_steps = args.epochs // args.periods\n"
     "    Module(1e-3, restart_steps=len(loader) * 3)", "1e-3, restart_steps"),
])
def test_restarts_counted_in_batches_are_still_reported(compute: str, arguments: str) -> None:
    assert "LRD003" in codes(program(compute, arguments))


def test_a_class_nothing_in_view_constructs_keeps_the_word() -> None:
    assert "LRD003" in codes(MODULE)


def test_another_store_of_the_attribute_keeps_the_word() -> None:
    source = program("    restart_steps = args.epochs // args.periods", "1e-3, restart_steps")
    source = source.replace(
        "    def training_step(self, batch, batch_idx):",
        "    def setup(self, stage):\n"
        "        self.restart_steps = self.trainer.estimated_stepping_batches\n\n"
        "    def training_step(self, batch, batch_idx):")
    assert "LRD003" in codes(source)


@pytest.mark.parametrize("compute,reported", [
    ("    restart_steps = args.epochs // args.periods", False),
    (TWO_BRANCHES.format(value="args.epochs // args.periods"), False),
    (TWO_BRANCHES.format(value="args.epochs * len(loader) // args.periods"), True),
])
def test_the_class_built_in_another_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         compute: str, reported: bool) -> None:
    driver = program(compute, "1e-3, restart_steps=restart_steps")
    tail = driver.split("\n\ndef main():", 1)[1]
    found = check_project(tmp_path, monkeypatch, {
        "model.py": MODULE,
        "train.py": "import argparse\nimport torch\nimport pytorch_lightning as pl\n"
                    "import model as models\n\n\ndef main():"
                    + tail.replace("Module(", "models.Module("),
    })
    assert [(f[0], f[2]) for f in found if f[2] == "LRD003"] == (
        [("model.py", "LRD003")] if reported else [])


CALCULATOR = """
import torch


class DecayCalc:
    def __init__(self, total):
        self.sgd = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
        self.cosine = torch.optim.lr_scheduler.CosineAnnealingLR(self.sgd, T_max=total)

    def factor(self, step):
        self.cosine.step(step)
        return self.sgd.param_groups[0]["lr"]


class ResetAdam(torch.optim.Adam):
    def __init__(self, params, lr=1e-3, total=1000):
        super().__init__(params, lr=lr)
        self.calc = DecayCalc(total)
        self.count = 0

    @torch.no_grad()
    def step(self, closure=None):
        self.count += 1
        scale = self.calc.factor(self.count)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.grad.mul_(scale)
        return super().step(closure)
"""

ZIP_LOOP = """
import torch
from opt.calc import ResetAdam


def build_optimizers(model, kind):
    if kind == "reset":
        return [ResetAdam(model.parameters(), lr=1e-3)]
    return [torch.optim.AdamW(model.parameters(), lr=1e-3)]


def build_schedulers(optimizers, steps):
    return [torch.optim.lr_scheduler.LambdaLR(o, lambda s: min(1.0, s / 100) * (1 - s / steps))
            for o in optimizers]


def main(kind="reset", steps=1000):
    model = torch.nn.Linear(8, 1)
    optimizers = build_optimizers(model, kind)
    schedulers = build_schedulers(optimizers, steps)
    for step in range(steps):
        loss = model(torch.randn(4, 8)).pow(2).mean()
        loss.backward()
        for opt, sched in zip(optimizers, schedulers):
            opt.step()
            sched.step()
            opt.zero_grad()
        if step % 100 == 0:
            log = dict(model=model.state_dict(), optimizers=[o.state_dict() for o in optimizers])
            torch.save(log, "state_%06d.pt" % step)


if __name__ == "__main__":
    main()
"""


def test_checkpoint_names_the_scheduler_of_the_trained_optimizers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from lrdoctor.catalog import CATALOG
    from lrdoctor.check.runner import check_files

    (tmp_path / ".git").mkdir()
    (tmp_path / "opt").mkdir()
    (tmp_path / "opt" / "calc.py").write_text(CALCULATOR)
    (tmp_path / "train.py").write_text(ZIP_LOOP)
    monkeypatch.chdir(tmp_path)
    report = check_files(["opt/calc.py", "train.py"], frozenset(CATALOG), jobs=1)
    found = [d for d in report.diagnostics if d.code == "LRD007"]
    assert [(d.path, d.line) for d in found] == [("train.py", 30)]
    # the LambdaLR the loop steps (built in a comprehension, so without a name of its own;
    # `sched` while ResetAdam was traced as a plain instance), never ResetAdam's inner cosine
    assert "(LambdaLR)" in found[0].message or "(`sched`)" in found[0].message
    assert "`scheduler`" not in found[0].message
    assert "cosine" not in found[0].message


PER_BATCH = """
import torch
from torch.utils.data import DataLoader, TensorDataset

n_epochs = 50
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
loader = DataLoader(TensorDataset(torch.randn(64, 4), torch.randn(64, 1)), batch_size=8)
scheduler = {build}
for epoch in range(n_epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        {batch_step}
    {epoch_step}
"""


@pytest.mark.parametrize("build,batch_step,epoch_step,expected", [
    ("torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=1, end_factor=1, "
     "total_iters=n_epochs)", "scheduler.step()", "pass", None),
    ("torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=1, end_factor=0.1, "
     "total_iters=n_epochs)", "scheduler.step()", "pass", "LRD002"),
    ("torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=1.0)",
     "scheduler.step()", "pass", None),
    ("torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.5)",
     "scheduler.step()", "pass", "LRD002"),
    ("torch.optim.lr_scheduler.ConstantLR(optimizer, factor=1.0, total_iters=n_epochs * len(loader))",
     "pass", "scheduler.step()", None),
    ("torch.optim.lr_scheduler.ConstantLR(optimizer, factor=0.5, total_iters=n_epochs * len(loader))",
     "pass", "scheduler.step()", "LRD003"),
])
def test_a_constant_torch_schedule_has_no_granularity_to_get_wrong(
        build: str, batch_step: str, epoch_step: str, expected: str | None) -> None:
    found = [c for c in codes(PER_BATCH.format(build=build, batch_step=batch_step,
                                               epoch_step=epoch_step))
             if c in ("LRD002", "LRD003")]
    assert found == ([expected] if expected else [])


CHOSEN = """
import argparse
import torch
from torch.optim import lr_scheduler
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--schedule", type=str, nargs=2, default=[None, None])
parser.add_argument("--epochs", type=int, default=300)
args = parser.parse_args()
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
loader = DataLoader(TensorDataset(torch.randn(64, 4), torch.randn(64, 1)), batch_size=8)
{build}
for epoch in range(args.epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        {batch_step}
    {epoch_step}
"""

SEQUENTIAL = """if args.schedule[0] == "ramp":
    scheduler = lr_scheduler.LinearLR(optimizer, 1.0, float(args.schedule[1]), args.epochs)
if args.schedule[0] == "exp":
    scheduler = lr_scheduler.ExponentialLR(optimizer, gamma=float(args.schedule[1]))"""

NESTED = """if args.schedule[0] is not None:
    if args.schedule[0] == "ramp":
        scheduler = lr_scheduler.LinearLR(optimizer, 1.0, float(args.schedule[1]), args.epochs)
    if args.schedule[0] == "exp":
        scheduler = lr_scheduler.ExponentialLR(optimizer, gamma=float(args.schedule[1]))
else:
    scheduler = lr_scheduler.LinearLR(optimizer, 1.0, 1.0, args.epochs)"""


REBUILT_DEFAULT = NESTED + """
if args.schedule[0] is None:
    scheduler = lr_scheduler.LinearLR(optimizer, 1.0, 1.0, args.epochs)"""


@pytest.mark.parametrize("build", [SEQUENTIAL, NESTED, REBUILT_DEFAULT])
@pytest.mark.parametrize("per_batch", [True, False])
def test_a_scheduler_picked_by_one_of_two_tests_of_a_setting_is_a_choice(
        build: str, per_batch: bool) -> None:
    source = CHOSEN.format(build=build,
                           batch_step="scheduler.step()" if per_batch else "pass",
                           epoch_step="pass" if per_batch else "scheduler.step()")
    found = [m for m in messages(source) if "LinearLR" in m]
    if per_batch:
        assert len(found) == 1 and "When `" in found[0] and "== 'ramp'" in found[0]
    else:
        assert found == []


TRAINER = """
import torch


class Trainer:
    def __init__(self, model, loader, cfg):
        self.model = model
        self.loader = loader
        self.epochs = int(cfg.get("epochs", 30))
        self.decay_every = {decay}
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer,
                                                         step_size=self.decay_every)

    def fit(self):
        for epoch in range(self.epochs):
            for x, y in self.loader:
                self.optimizer.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.optimizer.step()
            self.scheduler.step()
"""


@pytest.mark.parametrize("decay,reported", [
    # the setting's name echoes `step_size` and says nothing; int() keeps that so
    ('int(cfg.get("scheduler_step_size", 10))', False),
    ('cfg.get("scheduler_step_size", 10)', False),
    ("int(len(loader) * 10)", True),
])
def test_a_number_converted_by_int_reads_as_its_argument(decay: str, reported: bool) -> None:
    assert ("LRD003" in codes(TRAINER.format(decay=decay))) is reported
