"""Two shapes met in the fresh-2026-12zf batch of real code (issue 7), written in our own words.

1. A trainer that sets its precision up in one method and builds the GradScaler on both
   branches of one ``if``: ``GradScaler(enabled=True)`` when float16 is asked for,
   ``GradScaler(enabled=False)`` otherwise. The tracer kept the object of the last branch, so
   the name held the disabled scaler, and every rule read the run as one that never skips a
   step: the scheduler stepped after every ``scaler.step`` (LRD005) and the checkpoint
   without the scaler's state (LRD007) were both missed. A disabled scaler neither scales nor
   skips, so what is done to the name matters where the working one was built: after the
   ``if`` the name holds that one (as it already did for ``else: scaler = None``).

2. A Lightning module whose ``configure_optimizers`` returns the project's own warm-up
   scheduler class (a subclass of torch's base whose ``get_lr()`` sets ``self.last_epoch``
   against the warm-up and total lengths its constructor stores), built with lengths counted
   in optimizer steps (``total_epoch=self.num_train_steps``), without ``"interval": "step"``.
   Lightning steps it once per epoch, so the warm-up never finishes: LRD003, as for a
   built-in or Hugging Face schedule. The lengths are read from the arguments the call
   passes (the parameter names may say "epoch": the values say steps). A class whose
   ``step()`` is its own must still hand on to torch's (``super().step()``), which advances
   the count ``get_lr()`` reads.

Controls: the scaler disabled on both branches, a scaler whose state is saved, the scheduler
stepped per epoch (LRD005 is about per-update steps); the Lightning schedule returned with
``"interval": "step"``, sized in epochs, sized in both units, or of a class whose step()
counts by itself.
"""

from __future__ import annotations

from tests.check.helpers import codes, messages

_TRAINER = """
import torch


class Trainer:
    def __init__(self, model, loader, precision="fp16", epochs=10):
        self.model = model
        self.loader = loader
        self.epochs = epochs
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        total = len(loader) * epochs
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, lambda s: 1.0 - s / total)
        self.setup_precision(precision)

    def setup_precision(self, precision):
        if precision == "fp16":
            self.scaler = torch.amp.GradScaler("cuda", enabled={FIRST})
        else:
            self.scaler = torch.amp.GradScaler("cuda", enabled={SECOND})

    def train_epoch(self):
        for x, y in self.loader:
            with torch.autocast("cuda", dtype=torch.float16):
                loss = torch.nn.functional.mse_loss(self.model(x), y)
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)
            self.scaler.update()
{PER_BATCH}
            self.optimizer.zero_grad()
{PER_EPOCH}

    def save(self, epoch):
        torch.save({"epoch": epoch, "model": self.model.state_dict(),
                    "optimizer": self.optimizer.state_dict(),
                    "scheduler": self.scheduler.state_dict(){SCALER_STATE}}, "last.pt")

    def train(self):
        for epoch in range(self.epochs):
            self.train_epoch()
            self.save(epoch)
"""


def _trainer(first: str = "True", second: str = "False", per_epoch: bool = False,
             scaler_state: bool = False) -> str:
    step = "self.scheduler.step()"
    source = _TRAINER
    if per_epoch:  # a schedule stepped once per epoch is sized in epochs
        source = source.replace("total = len(loader) * epochs", "total = epochs")
    return (
        source.replace("{FIRST}", first).replace("{SECOND}", second)
        .replace("{PER_BATCH}", "" if per_epoch else f"            {step}")
        .replace("{PER_EPOCH}", f"        {step}" if per_epoch else "")
        .replace("{SCALER_STATE}", ',\n                    "scaler": self.scaler.state_dict()'
                 if scaler_state else "")
    )


def test_scaler_enabled_on_one_branch_and_disabled_on_the_other_is_read_as_on() -> None:
    found = codes(_trainer())
    assert found == ["LRD005", "LRD007"]


def test_the_disabled_scaler_first_and_the_working_one_in_else_is_read_as_on() -> None:
    found = codes(_trainer(first="False", second="True"))
    assert found == ["LRD005", "LRD007"]


def test_the_skip_message_names_the_scaler_built_on_the_working_branch() -> None:
    lrd005 = [m for m in messages(_trainer()) if "GradScaler skips" in m]
    assert len(lrd005) == 1 and "self.scaler.step" in lrd005[0]


def test_scaler_disabled_on_both_branches_stays_silent() -> None:
    assert codes(_trainer(first="False", second="False")) == []


def test_saved_scaler_and_scheduler_stepped_per_epoch_stay_silent() -> None:
    assert codes(_trainer(per_epoch=True, scaler_state=True)) == []


def test_a_schedule_sized_in_batches_stepped_per_epoch_is_still_lrd003() -> None:
    # the factor's `total` is followed to `len(loader) * epochs` (batches)
    source = _trainer(per_epoch=True, scaler_state=True).replace("total = epochs",
                                                                   "total = len(loader) * epochs")
    assert codes(source) == ["LRD003"]


def test_module_level_choice_of_scaler_is_read_as_on_under_the_flag() -> None:
    source = """
    import argparse
    import torch

    parser = argparse.ArgumentParser()
    parser.add_argument("--amp", action="store_true")
    args = parser.parse_args()
    model = torch.nn.Linear(4, 1).cuda()
    loader = torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=8)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=0.1, total_steps=len(loader) * 5)
    if args.amp:
        scaler = torch.amp.GradScaler("cuda")
    else:
        scaler = torch.amp.GradScaler("cuda", enabled=False)
    for epoch in range(5):
        for x in loader:
            with torch.autocast("cuda", enabled=args.amp):
                loss = model(x.cuda()).pow(2).mean()
            optimizer.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            scheduler.step()
    """
    assert codes(source) == ["LRD005"]
    assert any("args.amp" in m for m in messages(source))


_MODULE = """
import pytorch_lightning as pl
import torch
from torch.optim.lr_scheduler import _LRScheduler


class LinearWarmup(_LRScheduler):
    def __init__(self, optimizer, multiplier, warmup_epoch, total_epoch):
        self.multiplier = multiplier
        self.warmup_epoch = warmup_epoch
        self.total_epoch = total_epoch
        super().__init__(optimizer)

    def get_lr(self):
        if self.last_epoch % self.total_epoch > self.warmup_epoch:
            return [base * self.multiplier for base in self.base_lrs]
        rise = (self.multiplier - 1.0) * self.last_epoch / self.warmup_epoch
        return [base * (rise + 1.0) for base in self.base_lrs]
{STEP}

class Tagger(pl.LightningModule):
    def __init__(self, num_train_steps, warmup_ratio=0.05):
        super().__init__()
        self.head = torch.nn.Linear(16, 3)
        self.num_train_steps = num_train_steps
        self.warmup_ratio = warmup_ratio

    def training_step(self, batch, batch_idx):
        return self.head(batch).logsumexp(-1).mean()

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=2e-5)
        sched = LinearWarmup(opt, multiplier=1.1, warmup_epoch={WARMUP}, total_epoch={TOTAL})
        return {RETURN}
"""

_OWN_STEP = """
    def step(self, metrics=None, epoch=None):
        return super(LinearWarmup, self).step(epoch)
"""

_COUNTING_STEP = """
    def step(self, metrics=None, epoch=None):
        self.calls = getattr(self, "calls", 0) + 1
        if self.calls % 100 == 0:
            for group, lr in zip(self.optimizer.param_groups, self.get_lr()):
                group["lr"] = lr
"""

_STEPS = ("int(self.warmup_ratio * self.num_train_steps)", "self.num_train_steps")


def _module(step: str = _OWN_STEP, warmup: str = _STEPS[0], total: str = _STEPS[1],
            returned: str = "[opt], [sched]") -> str:
    return (_MODULE.replace("{STEP}", step).replace("{WARMUP}", warmup)
            .replace("{TOTAL}", total).replace("{RETURN}", returned))


def test_project_warmup_with_own_step_sized_in_steps_without_interval_is_reported() -> None:
    found = codes(_module())
    assert found == ["LRD003"]
    assert any("LinearWarmup(total_epoch=self.num_train_steps)" in m
               for m in messages(_module()))


def test_project_warmup_keeping_torch_step_sized_in_steps_is_reported() -> None:
    assert codes(_module(step="")) == ["LRD003"]


def test_interval_epoch_given_explicitly_is_reported() -> None:
    returned = '{"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "epoch"}}'
    assert codes(_module(returned=returned)) == ["LRD003"]


def test_project_warmup_stepped_per_step_by_lightning_is_silent() -> None:
    returned = '{"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}'
    assert codes(_module(returned=returned)) == []


def test_project_warmup_sized_in_epochs_is_silent() -> None:
    assert codes(_module(warmup="2", total="self.trainer.max_epochs")) == []


def test_project_warmup_sized_in_both_units_is_silent() -> None:
    # a warm-up of a few epochs before a decay counted in steps: which unit the class
    # counts in is not clear, and LRD003 stays quiet
    assert codes(_module(warmup="self.warmup_epochs", total="self.num_train_steps")) == []


def test_project_class_whose_step_counts_by_itself_is_silent() -> None:
    assert codes(_module(step=_COUNTING_STEP)) == []
