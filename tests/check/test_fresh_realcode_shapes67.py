"""Shapes behind the dev miss of the fresh-2026-12yu batch (course-assignment notebooks that
drive project modules; the lead, session 42, bench/realcode/README.md).

Programs written for these tests; no third-party code.

- A OneCycleLR sized ``epochs * len(loader)`` stepped once per epoch as
  ``scheduler.step(val_loss)``: the loss is taken as the schedule's position, which is no
  positioning in batches (``step(epoch * len(loader))`` would be), so the step is a per-epoch
  step of a batch-sized schedule (LRD003), besides the deprecated argument (LRD006). The
  scheduler comes from a notebook, the epoch loop from a module the notebook imports.
- Silent twins: the same schedule stepped plainly after every update; a ReduceLROnPlateau
  stepped with the validation loss once per epoch; a OneCycleLR positioned once per epoch
  with a count of batches.
- A OneCycleLR(epochs=4, steps_per_epoch=len(train_dl)) built in a notebook whose epoch loop
  runs ``range(config.EPOCHS)`` (15 in the project's config module) around a training
  function of another module that steps it after every batch of ``enumerate(tqdm(loader))``,
  ``loader`` its parameter: the loop's loader is the object whose ``len()`` sized the
  schedule (even when a project helper built it), and the count is the config module's
  constant, so the 5th epoch steps past the horizon (LRD010). Silent when the config says 4,
  when a cell sets ``config.EPOCHS = 4`` before the loop (the batch's erratum case) or when
  another module of the project writes ``config.EPOCHS`` (a driver copying its options).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lrdoctor.catalog import CATALOG
from lrdoctor.check.runner import check_files

from .helpers import check_project, codes, messages, notebook

FIT = '''
def run_epoch(model, loader, opt, sched, loss_fn):
    model.train()
    total = 0.0
    for x, y in loader:
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        {batch_step}
        total += loss.item()
    return total / len(loader)


def fit(model, loader, val_loader, opt, sched, loss_fn, epochs):
    val_losses = []
    for epoch in range(epochs):
        run_epoch(model, loader, opt, sched, loss_fn)
        val = sum(loss_fn(model(x), y).item() for x, y in val_loader)
        val_losses.append(val)
        {epoch_step}
    return val_losses
'''

CELLS = (
    """
    import torch
    from torch.optim.lr_scheduler import OneCycleLR
    from training import loops
    """,
    """
    model = torch.nn.Linear(4, 2)
    loader = torch.utils.data.DataLoader(list(range(64)), batch_size=8)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    sched = OneCycleLR(opt, max_lr=0.1, epochs=20, steps_per_epoch=len(loader))
    """,
    """
    loops.fit(model, loader, loader, opt, sched, torch.nn.functional.cross_entropy, 20)
    """,
)


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, batch_step: str, epoch_step: str,
             cells: tuple[str, ...] = CELLS) -> list[tuple[str, int, str]]:
    return check_project(tmp_path, monkeypatch, {
        "course/session.ipynb": notebook(*cells),
        "course/training/__init__.py": "",
        "course/training/loops.py": FIT.format(batch_step=batch_step, epoch_step=epoch_step),
    })


def test_onecycle_stepped_per_epoch_with_the_validation_loss(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    found = _project(tmp_path, monkeypatch, "pass", "sched.step(val_losses[-1])")
    assert ("course/training/loops.py", 21, "LRD003") in found
    assert ("course/training/loops.py", 21, "LRD006") in found


ONE_FILE = """
import torch
from torch.optim.lr_scheduler import OneCycleLR

model = torch.nn.Linear(4, 2)
loader = torch.utils.data.DataLoader(list(range(64)), batch_size=8)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
sched = OneCycleLR(opt, max_lr=0.1, epochs=20, steps_per_epoch=len(loader))
for epoch in range(20):
    for x, y in loader:
        opt.zero_grad()
        loss = model(x).sum()
        loss.backward()
        opt.step()
    val_loss = evaluate(model)
    sched.step({position})
"""


def test_message_says_the_loss_is_taken_as_the_position() -> None:
    source = ONE_FILE.format(position="val_loss")
    assert codes(source) == ["LRD003", "LRD006"]
    [lrd003] = [m for m in messages(source) if "once per epoch" in m]
    assert "`val_loss` (a loss or score) as its position" in lrd003
    assert "never anneals" in lrd003


def test_onecycle_stepped_after_every_update_is_silent(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    assert _project(tmp_path, monkeypatch, "sched.step()", "pass") == []


def test_plateau_stepped_with_the_validation_loss_is_silent(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    cells = (CELLS[0], CELLS[1].replace(
        "OneCycleLR(opt, max_lr=0.1, epochs=20, steps_per_epoch=len(loader))",
        "torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=2)"), CELLS[2])
    assert _project(tmp_path, monkeypatch, "pass", "sched.step(val_losses[-1])", cells) == []


def test_onecycle_positioned_in_batches_once_per_epoch_is_not_lrd003() -> None:
    assert "LRD003" not in codes(ONE_FILE.format(position="epoch * len(loader)"))


TRAIN_OCP = """
from tqdm import tqdm


def train_ocp(model, dataloader, optimizer, scheduler, loss_fn):
    model.train()
    pbar = tqdm(dataloader, total=len(dataloader))
    for batch_idx, (data, target) in enumerate(pbar):
        optimizer.zero_grad()
        loss = loss_fn(model(data), target)
        loss.backward()
        optimizer.step()
        scheduler.step()
"""

LOADERS = """
import torch


def make_loader(data, batch_size):
    return torch.utils.data.DataLoader(data, batch_size=batch_size, shuffle=True)
"""


def _overrun_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config_epochs: int = 15,
                     cell_store: str = "", extra: dict[str, str] | None = None
                     ) -> list[tuple[str, int, str]]:
    cells = (
        """
        import torch
        from utils import config
        from utils.loaders import make_loader
        from engine import train_ocp
        """,
        f"""
        model = torch.nn.Linear(4, 2)
        train_dl = make_loader(list(range(64)), 8)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        {cell_store}
        """,
        """
        scheduler = torch.optim.lr_scheduler.OneCycleLR(
            optimizer, max_lr=0.1, steps_per_epoch=len(train_dl), epochs=4)
        for epoch in range(config.EPOCHS):
            train_ocp(model, train_dl, optimizer, scheduler, torch.nn.functional.cross_entropy)
        """,
    )
    files = {
        "week/session.ipynb": notebook(*cells),
        "week/utils/__init__.py": "",
        "week/utils/config.py": f"EPOCHS = {config_epochs}\nBATCH_SIZE = 8\n",
        "week/utils/loaders.py": LOADERS,
        "week/engine.py": TRAIN_OCP,
    }
    files.update(extra or {})
    return check_project(tmp_path, monkeypatch, files)


def test_onecycle_sized_for_fewer_epochs_than_a_config_module_says(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _overrun_project(tmp_path, monkeypatch)
    assert ("week/engine.py", 13, "LRD010") in found


def test_onecycle_sized_for_the_config_modules_epochs_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _overrun_project(tmp_path, monkeypatch, config_epochs=4) == []


def test_a_cell_that_sets_the_config_epochs_makes_the_count_unknown(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _overrun_project(tmp_path, monkeypatch, cell_store="config.EPOCHS = 4") == []


def test_a_module_that_writes_the_config_epochs_makes_the_count_unknown(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    driver = "import argparse\nfrom utils import config\n\n\ndef setup(args):\n    config.EPOCHS = args.epochs\n"
    assert _overrun_project(tmp_path, monkeypatch, extra={"week/cli.py": driver}) == []


# Found by running the session-start build over the 20 course repositories whole
# (bench/realcode/README.md, lead67): two false alarms.

HELPER_ONECYCLE = """
from torch.optim.lr_scheduler import OneCycleLR


def get_scheduler(optimizer, max_lr, epochs, steps_per_epoch, pct_start):
    return OneCycleLR(optimizer, max_lr=max_lr, total_steps=None, epochs=epochs,
                      steps_per_epoch=steps_per_epoch, pct_start=pct_start)
"""

DRIVER = """
import torch
from lrsched import get_scheduler

model = torch.nn.Linear(4, 2)
loader = torch.utils.data.DataLoader(list(range(64)), batch_size=8)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
EPOCHS = 20
scheduler = get_scheduler(optimizer, max_lr=0.01, epochs=EPOCHS, steps_per_epoch={per_epoch},
                          pct_start=0.25)
for epoch in range(1, EPOCHS + 1):
    for x, y in loader:
        optimizer.zero_grad()
        model(x).sum().backward()
        optimizer.step()
    scheduler.step()
"""


@pytest.mark.parametrize(("per_epoch", "reported"), [("1", False), ("len(loader)", True)])
def test_onecycle_of_one_step_an_epoch_through_a_helper(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        per_epoch: str, reported: bool) -> None:
    """`steps_per_epoch=1` handed to a helper's parameter is a one-cycle over epochs, stepped
    once per epoch by design; `len(loader)` through the same parameter is the bug."""
    found = check_project(tmp_path, monkeypatch, {
        "lrsched.py": HELPER_ONECYCLE, "train.py": DRIVER.format(per_epoch=per_epoch)})
    assert (("train.py", 16, "LRD003") in found) is reported


PLATEAU_TRAINER = """
import torch


class Trainer:
    def __init__(self, model, optimizer, loader, val_loader=None, sched=None, monitor=None):
        self.model, self.optimizer = model, optimizer
        self.loader, self.val_loader = loader, val_loader
        self.sched = sched
        self.monitor = monitor

    def epoch(self):
        for x, y in self.loader:
            self.optimizer.zero_grad()
            self.model(x).sum().backward()
            self.optimizer.step()
        value = sum(self.model(x).sum().item() for x, y in self.val_loader)
        {step}


model = torch.nn.Linear(4, 2)
loader = torch.utils.data.DataLoader(list(range(64)), batch_size=8)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", patience=2)
trainer = Trainer(model, opt, loader, val_loader=loader, sched=sched, monitor="loss")
for _ in range(10):
    trainer.epoch()
"""


def test_conditional_expression_statement_runs_one_branch_as_an_if_does() -> None:
    """`sched.step(value) if self.monitor else sched.step()` with the monitor set by the caller
    steps with the metric: the branch without it never runs (as written with `if`/`else`)."""
    ternary = "self.sched.step(value) if self.monitor else self.sched.step()"
    statement = "if self.monitor:\n            self.sched.step(value)\n        else:\n            self.sched.step()"
    assert codes(PLATEAU_TRAINER.format(step=ternary)) == []
    assert codes(PLATEAU_TRAINER.format(step=statement)) == []
    # a plateau stepped without its metric on every pass is still found
    assert codes(PLATEAU_TRAINER.format(step="self.sched.step()")) == ["LRD004"]


HELPER_TOTAL = """
from torch.optim.lr_scheduler import OneCycleLR


def get_scheduler(optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None):
    return OneCycleLR(optimizer, max_lr=max_lr, total_steps=total_steps, epochs=epochs,
                      steps_per_epoch=steps_per_epoch)
"""


@pytest.mark.parametrize(("total", "reported"), [("EPOCHS", False), ("EPOCHS * len(loader)", True)])
def test_onecycle_total_steps_of_the_epoch_count_through_a_helper(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, total: str, reported: bool) -> None:
    """`total_steps=EPOCHS` handed to a helper's parameter named in steps: as many steps as the
    epoch loop (`range(1, EPOCHS + 1)`) makes passes, so one step an epoch is the design."""
    driver = DRIVER.replace("steps_per_epoch={per_epoch},\n                          pct_start=0.25",
                            f"total_steps={total}")
    found = check_project(tmp_path, monkeypatch, {"lrsched.py": HELPER_TOTAL, "train.py": driver})
    assert (("train.py", 15, "LRD003") in found) is reported


def test_loss_positioned_epoch_step_beside_per_batch_steps_says_both(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The training function also steps the OneCycleLR after every update: each epoch's
    `step(val_loss)` puts it back near its start, and the message says so."""
    found = _project(tmp_path, monkeypatch, "sched.step()", "sched.step(val_losses[-1])")
    assert ("course/training/loops.py", 21, "LRD003") in found
    report = check_files(["course/session.ipynb", "course/training/loops.py"], frozenset(CATALOG),
                         jobs=1)
    [message] = [d.message for d in report.diagnostics if d.code == "LRD003"]
    assert "also stepped after every update (line 10)" in message
    assert "replays its first epoch" in message


MANUAL_MODULE = """
import torch
import lightning.pytorch as pl


class Regressor(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(8, 1)
        self.automatic_optimization = False
        self.accumulate = 4

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        loss = self.net(batch).pow(2).mean()
        self.manual_backward(loss)
        if (batch_idx + 1) % {count} == 0:
            opt.step()
            opt.zero_grad()
        sch = self.lr_schedulers()
        sch.step()
        return loss

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=1e-3)
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3, total_steps=1000)
        return [opt], [sched]
"""


@pytest.mark.parametrize(("count", "reported"), [("self.trainer.accumulate_grad_batches", False),
                                                 ("self.accumulate", True)])
def test_manual_optimization_accumulation_test_is_always_true(count: str, reported: bool) -> None:
    """Found on a Kaggle repository (lead67d): in manual optimization Lightning refuses
    `accumulate_grad_batches` other than 1, so `% self.trainer.accumulate_grad_batches == 0`
    holds on every batch and the scheduler steps with its optimizer; an accumulation count of
    the module's own still makes the scheduler run ahead of the updates."""
    assert ("LRD017" in codes(MANUAL_MODULE.format(count=count))) is reported


CONSTANT_LINEAR = """
import torch

model = torch.nn.Linear(4, 2)
loader = torch.utils.data.DataLoader(list(range(64)), batch_size=8)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor={start}, end_factor=1.0,
                                              total_iters=10)
if args.resume:
    optimizer.load_state_dict(torch.load("optimizer.pt"))
for epoch in range(20):
    for x in loader:
        optimizer.zero_grad()
        model(x).sum().backward()
        optimizer.step()
    scheduler.step()
    print("lr", scheduler.get_lr())
    torch.save(model.state_dict(), "model.pt")
    torch.save(optimizer.state_dict(), "optimizer.pt")
"""


@pytest.mark.parametrize(("start", "reported"), [("1.0", False), ("0.1", True)])
def test_a_linear_lr_that_keeps_the_lr_loses_nothing(start: str, reported: bool) -> None:
    """Found on a Kaggle repository (lead67e): `LinearLR(opt, start_factor=1.0,
    end_factor=1.0)` leaves the LR where it is at every position, so leaving it out of the
    checkpoint or reading get_lr() changes nothing; a real warm-up (0.1 -> 1.0) still counts."""
    found = codes(CONSTANT_LINEAR.format(start=start))
    assert ("LRD007" in found) is reported
    assert ("LRD015" in found) is reported
