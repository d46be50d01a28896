"""Shapes behind the dev misses of the fresh-2026-12zk84 batch (rcnew84, bench/realcode/README.md).

Programs written for these tests; no third-party code.

- A ReduceLROnPlateau stepped with a score of the training split (``plateau.step(train_acc)``)
  while the same epoch computes the validation score (``val_acc``) that picks the best model.
  LRD004 judged a training *loss* fed to a plateau, never a training accuracy, so a plateau
  watching the training accuracy said nothing. Python: the plateau cuts the LR when the
  training accuracy stalls, which tracks fitting, not generalisation.
- A trainer whose model builds the optimizers and schedulers (``self.optimizers,
  self.schedulers = self.model.configure_optimizers(...)``) through code lrdoctor cannot
  evaluate, then takes the first of each (``self.scheduler = self.schedulers[0]``) and steps it
  after ``scaler.step(optimizer)`` of an always-on GradScaler. The item of an unknown list was
  unknown, so the stepped object was no scheduler and LRD005 said nothing; lrdoctor already
  read an entry of an unknown mapping by a literal *string* key as the object its name says
  (``self.optimizer = self.optimizers["model"]``). Python: the first item of a list named
  ``schedulers`` is a scheduler.
- Probing the LRD004 family further: a trainer whose ``train_epoch()`` returns a record
  (``{"loss": ...}``) steps the plateau with ``train_result["loss"]`` while ``validate()``
  returns the same record for the validation split. LRD004 read a training loss only from a
  single name (``train_loss``, ``epoch_loss``); the record's name says training and its key
  says loss, which is the training loss Python reads there.
"""

from __future__ import annotations

import pytest

from .helpers import codes, messages

# -- LRD004: a plateau watching a score of the training split ---------------------------------

TRAINING_SCORE = """
import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau


class Classifier(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(6, 3)

    def forward(self, x):
        return self.net(x)

    def score(self, batches):
        hits, seen = 0, 0
        with torch.no_grad():
            for x, y in batches:
                hits += (self(x).argmax(1) == y).sum().item()
                seen += len(y)
        return hits / seen

    def fit(self, train_batches, val_batches, epochs=10, use_plateau=True):
        opt = torch.optim.Adam(self.parameters(), lr=1e-3)
        plateau = ReduceLROnPlateau(opt, mode="max", patience=2) if use_plateau else None
        best = 0.0
        for epoch in range(epochs):
            for x, y in train_batches:
                opt.zero_grad()
                torch.nn.functional.cross_entropy(self(x), y).backward()
                opt.step()
            train_acc = self.score(train_batches)
            val_acc = self.score(val_batches)
            if use_plateau:
                plateau.step(train_acc)
            if val_acc >= best:
                best = val_acc
        return best
"""


def test_plateau_watching_the_training_accuracy_is_found() -> None:
    assert "LRD004" in codes(TRAINING_SCORE)
    found = messages(TRAINING_SCORE)
    assert any("training metric `train_acc`" in m and "`val_acc`" in m for m in found), found


def test_plateau_watching_the_validation_accuracy_is_silent() -> None:
    right = TRAINING_SCORE.replace("plateau.step(train_acc)", "plateau.step(val_acc)")
    assert "LRD004" not in codes(right)


def _spelled(watched: str, bound: str = "train_acc = self.score(train_batches)") -> str:
    return TRAINING_SCORE.replace(
        "train_acc = self.score(train_batches)", bound
    ).replace("plateau.step(train_acc)", f"plateau.step({watched})")


@pytest.mark.parametrize("watched, bound", [
    ("trainAcc", "trainAcc = self.score(train_batches)"),
    ("self.train_accuracy", "self.train_accuracy = self.score(train_batches)"),
    ("train_accs[-1]", "train_accs = [self.score(train_batches)]"),
    ("history['train_f1']", "history = {'train_f1': self.score(train_batches)}"),
    ("tr_top1", "tr_top1 = self.score(train_batches)"),
    ("epoch_train_miou", "epoch_train_miou = self.score(train_batches)"),
])
def test_other_spellings_of_a_training_score_are_found(watched: str, bound: str) -> None:
    assert "LRD004" in codes(_spelled(watched, bound))


def test_training_score_without_any_validation_is_silent() -> None:
    alone = TRAINING_SCORE.replace("            val_acc = self.score(val_batches)\n", "").replace(
        "            if val_acc >= best:\n                best = val_acc\n", "")
    assert "val_acc" not in alone
    assert "LRD004" not in codes(alone)


@pytest.mark.parametrize("watched, bound", [
    ("strain_acc", "strain_acc = self.score(train_batches)"),  # no training split named
    ("acc", "acc = self.score(val_batches)"),
    ("train_val_acc", "train_val_acc = self.score(val_batches)"),
])
def test_scores_not_named_as_training_ones_are_silent(watched: str, bound: str) -> None:
    assert "LRD004" not in codes(_spelled(watched, bound))


# -- LRD005: the first item of a list named `schedulers`, stepped after scaler.step -----------

FIRST_OF_LISTS = """
import torch
from torch.amp import GradScaler


class Trainer:
    def __init__(self, model, fp16, accumulation):
        self.model = model
        self.fp16 = fp16
        self.accumulation = accumulation
        self.optimizers, self.schedulers = [], []

    def init_fp16(self):
        self.loss_scaler = GradScaler("cuda")

    def train(self, loader, epochs):
        self.init_fp16()
        total = len(loader) * epochs // self.accumulation
        self.optimizers, self.schedulers = self.model.configure_optimizers(total)
        self.batches = 0
        for _ in range(epochs):
            self.train_epoch(loader)

    def train_epoch(self, loader):
        self.optimizer = self.optimizers[0]
        self.scheduler = self.schedulers[0]
        for batch in loader:
            with torch.autocast("cuda", enabled=self.fp16):
                loss = self.model(batch) / self.accumulation
            if self.fp16:
                self.loss_scaler.scale(loss).backward()
            else:
                loss.backward()
            if (self.batches + 1) % self.accumulation == 0:
                self.step_update(self.optimizer, self.scheduler)
            self.batches += 1

    def step_update(self, optimizer, scheduler=None):
        if self.fp16:
            self.loss_scaler.step(optimizer)
            self.loss_scaler.update()
        else:
            optimizer.step()
        if scheduler:
            scheduler.step()
        optimizer.zero_grad()
"""


def test_first_of_an_unknown_schedulers_list_stepped_after_scaler_step_is_found() -> None:
    found = [m for m in messages(FIRST_OF_LISTS) if "GradScaler skips" in m]
    assert found, messages(FIRST_OF_LISTS)


def test_first_of_the_list_stepped_only_after_a_real_update_is_silent() -> None:
    aware = FIRST_OF_LISTS.replace(
        """        if self.fp16:
            self.loss_scaler.step(optimizer)
            self.loss_scaler.update()
        else:
            optimizer.step()
        if scheduler:
            scheduler.step()""",
        """        stepped = True
        if self.fp16:
            before = self.loss_scaler.get_scale()
            self.loss_scaler.step(optimizer)
            self.loss_scaler.update()
            stepped = self.loss_scaler.get_scale() >= before
        else:
            optimizer.step()
        if scheduler and stepped:
            scheduler.step()""")
    assert "LRD005" not in codes(aware)


def test_switched_off_scaler_with_the_first_of_the_list_is_silent() -> None:
    off = FIRST_OF_LISTS.replace('GradScaler("cuda")', 'GradScaler("cuda", enabled=False)')
    assert "LRD005" not in codes(off)


@pytest.mark.parametrize("old, new", [
    ("self.scheduler = self.schedulers[0]", "self.scheduler = self.schedulers[-1]"),
    ("self.scheduler = self.schedulers[0]",
     "self.scheduler = self.schedulers[0] if self.schedulers else None"),
    ("self.optimizer = self.optimizers[0]\n        self.scheduler = self.schedulers[0]",
     "self.optimizer, self.scheduler = self.optimizers[0], self.schedulers[0]"),
    ("self.optimizers, self.schedulers = self.model.configure_optimizers(total)",
     "self.optimizers, self.lr_schedulers = self.model.configure_optimizers(total)"),
])
def test_other_spellings_of_the_item_are_found(old: str, new: str) -> None:
    program = FIRST_OF_LISTS.replace(old, new)
    if "lr_schedulers" in new:
        program = program.replace("self.schedulers[0]", "self.lr_schedulers[0]")
    assert "LRD005" in codes(program)


def test_item_of_a_list_named_for_something_else_is_silent() -> None:
    other = FIRST_OF_LISTS.replace(
        "self.optimizers, self.schedulers = self.model.configure_optimizers(total)",
        "self.optimizers, self.phases = self.model.configure_optimizers(total)",
    ).replace("self.scheduler = self.schedulers[0]", "self.scheduler = self.phases[0]")
    assert "LRD005" not in codes(other)


# -- LRD004: the loss entry of the record the training pass returns ---------------------------

RECORDS = """
import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau


class Trainer:
    def __init__(self, model, train_loader, val_loader, epochs):
        self.model = model
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.epochs = epochs
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        self.scheduler = ReduceLROnPlateau(self.optimizer, mode="min", patience=3)

    def train_epoch(self):
        total = 0.0
        for x, y in self.train_loader:
            self.optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            total += loss.item()
        return {"loss": total / len(self.train_loader)}

    @torch.no_grad()
    def validate(self):
        total = 0.0
        for x, y in self.val_loader:
            total += torch.nn.functional.mse_loss(self.model(x), y).item()
        return {"loss": total / len(self.val_loader)}

    def fit(self):
        best = float("inf")
        for epoch in range(self.epochs):
            train_result = self.train_epoch()
            val_result = self.validate()
            self.scheduler.step(train_result["loss"])
            if val_result["loss"] < best:
                best = val_result["loss"]
"""


def test_loss_entry_of_the_training_record_is_found() -> None:
    found = [m for m in messages(RECORDS) if "training loss `train_result['loss']`" in m]
    assert found, messages(RECORDS)


def test_loss_entry_of_the_validation_record_is_silent() -> None:
    right = RECORDS.replace('self.scheduler.step(train_result["loss"])',
                            'self.scheduler.step(val_result["loss"])')
    assert "LRD004" not in codes(right)


@pytest.mark.parametrize("old, new", [
    ('train_result = self.train_epoch()', 'train_stats = self.train_epoch()'),
    ('train_result = self.train_epoch()', 'self.train_log = self.train_epoch()'),
])
def test_other_records_of_the_training_pass_are_found(old: str, new: str) -> None:
    record = new.split(" = ")[0]
    program = RECORDS.replace(old, new).replace(
        'self.scheduler.step(train_result["loss"])', f'self.scheduler.step({record}["loss"])')
    assert "LRD004" in codes(program)


def test_accuracy_entry_of_the_training_record_with_mode_max_is_found() -> None:
    program = RECORDS.replace('mode="min"', 'mode="max"').replace(
        'return {"loss": total / len(self.train_loader)}',
        'return {"loss": total / len(self.train_loader), "acc": 1.0 - total}').replace(
        'self.scheduler.step(train_result["loss"])', 'self.scheduler.step(train_result["acc"])')
    assert "LRD004" in codes(program)


@pytest.mark.parametrize("old, new", [
    # `trainer` names no training split
    ('train_result = self.train_epoch()', 'trainer_state = self.train_epoch()'),
    # a record of the training pass read by a key that names no metric
    ('self.scheduler.step(train_result["loss"])', 'self.scheduler.step(train_result["lr"])'),
])
def test_entries_that_are_no_training_metric_are_silent(old: str, new: str) -> None:
    program = RECORDS.replace(old, new)
    if "trainer_state" in new:
        program = program.replace('train_result["loss"]', 'trainer_state["loss"]')
    assert "LRD004" not in codes(program)


def test_training_record_without_validation_is_silent() -> None:
    alone = RECORDS.replace("            val_result = self.validate()\n", "").replace(
        '            if val_result["loss"] < best:\n                best = val_result["loss"]\n',
        "").replace("    @torch.no_grad()\n    def validate(self):", "    def unused(self):")
    alone = alone.replace("self.val_loader", "self.extra_loader").replace(
        "val_loader", "extra_loader")
    assert "LRD004" not in codes(alone)
