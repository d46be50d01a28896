"""rcnew83 (batch fresh-2026-12zj83, Kaggle code): shapes of real code the checker got wrong,
fixed by semantics, in our own words.

1. A scheduler picked by a string setting through a constant table: the builder tests
   ``TABLE[cfg.kind] == "StepLR"`` (``TABLE = {"step": "StepLR", ...}``, at the top of the
   module or imported from the project's config module) and the loop steps it under ``if
   cfg.kind == "plat": sched.step(val_loss)``. Python looks the setting up first, so the
   builder's test holds exactly for the keys whose entry is that class: under the step's
   guard only the plateau is built, and step(val_loss) is its metric (no LRD006). The guard
   decided nothing before, so every option was named. A guard on a key whose entry is a
   chainable class still reports LRD006, naming that class alone.
2. A plateau stepped with a validation function's running loss: ``epoch_loss = running /
   seen``, ``running`` summed in a loop over ``bar = tqdm(enumerate(valid_loader))`` and
   started by ``running, seen = 0.0, 0``. The value was judged by the name `epoch_loss` (a
   training-loss name): the sum it divides was not followed, the loop's data was read only
   from the loop's header, and the tuple start counted as a value added. The same code over
   the training loader still reports LRD004.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, messages, project_codes

TABLE_BUILDER = """
import torch
from torch.optim import lr_scheduler

KINDS = {"cos": "CosineAnnealingLR", "plat": "ReduceLROnPlateau", "step": "StepLR"}


def build(opt, cfg):
    if KINDS[cfg.kind] == "CosineAnnealingLR":
        sched = lr_scheduler.CosineAnnealingLR(opt, T_max=cfg.epochs)
    elif KINDS[cfg.kind] == "ReduceLROnPlateau":
        sched = lr_scheduler.ReduceLROnPlateau(opt, patience=2)
    elif KINDS[cfg.kind] == "StepLR":
        sched = lr_scheduler.StepLR(opt, step_size=3)
    return sched


def evaluate(model, loader):
    total = 0.0
    with torch.no_grad():
        for x, y in loader:
            total += float(model(x).sum())
    return total


def main(cfg, model, train_loader, val_loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = build(opt, cfg)
    for epoch in range(cfg.epochs):
        for x, y in train_loader:
            opt.zero_grad()
            loss = model(x).sum()
            loss.backward()
            opt.step()
        val_loss = evaluate(model, val_loader)
        if cfg.kind == "plat":
            sched.step(val_loss)
        else:
            sched.step()
"""


def test_plateau_key_of_a_class_table_is_no_epoch_argument() -> None:
    assert "LRD006" not in codes(TABLE_BUILDER)


def test_step_key_of_a_class_table_names_that_class_alone() -> None:
    src = TABLE_BUILDER.replace('if cfg.kind == "plat":', 'if cfg.kind == "step":').replace(
        "sched.step(val_loss)", "sched.step(epoch)")
    found = [m for m in messages(src) if "deprecated" in m]
    assert len(found) == 1
    assert "hands `epoch` to StepLR," in found[0]


def test_table_entry_tested_with_in() -> None:
    src = TABLE_BUILDER.replace('KINDS[cfg.kind] == "ReduceLROnPlateau"',
                                'KINDS[cfg.kind] in ("ReduceLROnPlateau",)')
    assert "LRD006" not in codes(src)


def test_table_changed_in_place_decides_nothing() -> None:
    # a table the program writes into may map the key to anything: every option stays
    src = TABLE_BUILDER.replace("def build(opt, cfg):",
                                'KINDS["plat"] = "StepLR"\n\n\ndef build(opt, cfg):')
    assert "LRD006" in codes(src)


CONFIGS = """
KINDS = {"cos": "CosineAnnealingLR", "plat": "ReduceLROnPlateau", "step": "StepLR"}
"""


def test_class_table_imported_from_the_config_module(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    train = TABLE_BUILDER.replace(
        'KINDS = {"cos": "CosineAnnealingLR", "plat": "ReduceLROnPlateau", "step": "StepLR"}',
        "from configs import KINDS")
    found = check_project(tmp_path, monkeypatch, {"configs.py": CONFIGS, "train.py": train})
    assert "LRD006" not in project_codes(found)
    buggy = train.replace('if cfg.kind == "plat":', 'if cfg.kind == "step":').replace(
        "sched.step(val_loss)", "sched.step(epoch)")
    found = check_project(tmp_path / "b", monkeypatch, {"configs.py": CONFIGS, "train.py": buggy})
    assert "LRD006" in project_codes(found)


RUNNING_VALIDATION = """
import torch
from tqdm import tqdm


def train_one_epoch(model, train_loader, optimizer, criterion):
    model.train()
    for x, y in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()


def valid_one_epoch(model, valid_loader, criterion, scheduler):
    model.eval()
    running, seen = 0.0, 0
    bar = tqdm(enumerate(valid_loader), total=len(valid_loader))
    for step, (x, y) in bar:
        with torch.no_grad():
            loss = criterion(model(x), y)
        running += loss.item() * x.size(0)
        seen += x.size(0)
    epoch_loss = running / seen
    scheduler.step(epoch_loss)
    return epoch_loss


def main(model, train_loader, valid_loader, epochs):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", patience=2)
    criterion = torch.nn.MSELoss()
    for epoch in range(epochs):
        train_one_epoch(model, train_loader, optimizer, criterion)
        val_loss = valid_one_epoch(model, valid_loader, criterion, scheduler)
        print(epoch, val_loss)
"""


def test_running_loss_of_the_validation_batches_is_the_validation_loss() -> None:
    assert "LRD004" not in codes(RUNNING_VALIDATION)


def test_running_loss_with_plain_starts_is_the_validation_loss() -> None:
    src = RUNNING_VALIDATION.replace("    running, seen = 0.0, 0\n",
                                     "    running = 0.0\n    seen = 0\n")
    assert "LRD004" not in codes(src)


def test_running_loss_of_the_training_batches_is_still_reported() -> None:
    src = RUNNING_VALIDATION.replace(
        "val_loss = valid_one_epoch(model, valid_loader,",
        "val_loss = valid_one_epoch(model, train_loader,").replace(
        "def valid_one_epoch(model, valid_loader,", "def valid_one_epoch(model, train_loader,"
    ).replace("enumerate(valid_loader), total=len(valid_loader)",
              "enumerate(train_loader), total=len(train_loader)")
    assert "LRD004" in codes(src)


# 3. A per-batch horizon written as one epoch's count divided by the epochs the loop runs
#    (`len(train_set) / batch_size / epochs`, meant as a product): the first epoch alone runs
#    past it whenever epochs > 1, and the run makes epochs x epochs times its length (LRD010).
#    It was read only as E epochs of batches (a product); and the LR written into the
#    optimizer each epoch on one path counted as a restart of the schedule, although a
#    LambdaLR-style warm-up sets the LR from its base values at its next step.

DIVIDED = """
import torch
from torch.utils.data import DataLoader
from transformers import get_linear_schedule_with_warmup


def main(model, train_set, batch_size, epochs):
    loader = DataLoader(train_set, batch_size=batch_size, shuffle=True)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-5)
    total = int(len(train_set) / batch_size / epochs)
    sched = get_linear_schedule_with_warmup(opt, int(0.1 * total), total)
    for epoch in range(epochs):
        for step, batch in enumerate(loader):
            loss = model(batch).mean()
            loss.backward()
            opt.step()
            sched.step()
            opt.zero_grad()
"""


def test_horizon_divided_by_the_loop_epochs_overruns() -> None:
    found = [m for m in messages(DIVIDED) if m.startswith("get_linear_schedule_with_warmup")]
    assert len(found) == 1 and "divided by `epochs`" in found[0]
    assert "LRD010" in codes(DIVIDED)


def test_horizon_multiplied_by_the_loop_epochs_is_silent() -> None:
    src = DIVIDED.replace("len(train_set) / batch_size / epochs",
                          "len(train_set) / batch_size * epochs")
    assert "LRD010" not in codes(src)


def test_horizon_divided_by_another_setting_is_silent() -> None:
    src = DIVIDED.replace("def main(model, train_set, batch_size, epochs):",
                          "def main(model, train_set, batch_size, epochs, accum):").replace(
        "len(train_set) / batch_size / epochs", "len(train_set) / batch_size / accum * epochs")
    assert "LRD010" not in codes(src)


def test_horizon_divided_by_a_literal_is_left_to_the_counting_rules() -> None:
    src = DIVIDED.replace("len(train_set) / batch_size / epochs",
                          "len(train_set) / batch_size / 1").replace(
        "range(epochs)", "range(1)")
    assert "LRD010" not in codes(src)


def test_batch_loop_that_stops_early_is_silent() -> None:
    src = DIVIDED.replace("            opt.zero_grad()\n",
                          "            opt.zero_grad()\n            if step >= total:\n"
                          "                break\n")
    assert "LRD010" not in codes(src)


ONECYCLE_ARGS = """
import argparse

import torch
from torch.utils.data import DataLoader

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int)
args = parser.parse_args()

model = torch.nn.Linear(4, 1)
loader = DataLoader(torch.randn(256, 4), batch_size=32)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1,
                                            total_steps=len(loader) // args.epochs)
for epoch in range(args.epochs):
    for x in loader:
        opt.zero_grad()
        model(x).sum().backward()
        opt.step()
        sched.step()
"""


def test_onecycle_of_one_epoch_over_the_epochs_setting_overruns() -> None:
    assert "LRD010" in codes(ONECYCLE_ARGS)


def test_onecycle_of_the_whole_run_is_silent() -> None:
    src = ONECYCLE_ARGS.replace("len(loader) // args.epochs", "len(loader) * args.epochs")
    assert "LRD010" not in codes(src)


TRAINER = """
import torch
from transformers import get_cosine_schedule_with_warmup


def one_step(model, batch, optimizer, scheduler):
    loss = model(batch).mean()
    loss.backward()
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad()


class Trainer:
    def __init__(self, model, data, params):
        self.model = model
        self.data = data
        self.params = params

    def prepare(self):
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=self.params["lr"][0])
        steps = int(len(self.data.train_set) / self.data.train_loader.batch_size
                    / self.params["epochs"])
        self.scheduler = get_cosine_schedule_with_warmup(self.optimizer, int(0.1 * steps), steps)

    def fit(self):
        for epoch in range(self.params["epochs"]):
            for g in self.optimizer.param_groups:
                g["lr"] = self.params["lr"][epoch]
            for batch in self.data.train_loader:
                one_step(self.model, batch, self.optimizer, self.scheduler)


def run(model, data, params):
    trainer = Trainer(model, data, params)
    trainer.prepare()
    trainer.fit()
"""


def test_warmup_divided_by_the_epochs_in_a_trainer_with_lr_writes_overruns() -> None:
    # the LR written each epoch is erased by the warm-up's next step: no restart
    assert "LRD010" in codes(TRAINER)


def test_chainable_cosine_with_lr_writes_each_epoch_is_left_alone() -> None:
    # a chainable cosine multiplies the LR in place: a write each epoch reshapes it by hand
    src = TRAINER.replace(
        "self.scheduler = get_cosine_schedule_with_warmup(self.optimizer, int(0.1 * steps), steps)",
        "self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(self.optimizer, T_max=steps)")
    assert "LRD010" not in codes(src)


def test_table_looked_up_with_get() -> None:
    src = TABLE_BUILDER.replace("KINDS[cfg.kind] ==", "KINDS.get(cfg.kind) ==")
    assert "LRD006" not in codes(src)
    buggy = src.replace('if cfg.kind == "plat":', 'if cfg.kind == "step":').replace(
        "sched.step(val_loss)", "sched.step(epoch)")
    assert [m for m in messages(buggy) if "deprecated" in m and "to StepLR," in m]


def test_negated_guard_keeps_the_plateau_out_of_the_bare_step() -> None:
    src = TABLE_BUILDER.replace('''        if cfg.kind == "plat":
            sched.step(val_loss)
        else:
            sched.step()''', '''        if not cfg.kind == "plat":
            sched.step()
        if cfg.kind == "plat":
            sched.step(val_loss)''')
    assert codes(src) == []


def test_epoch_sized_cosine_of_a_table_stepped_per_batch_is_still_lrd002() -> None:
    src = TABLE_BUILDER.replace('''            opt.step()
        val_loss''', '''            opt.step()
            if cfg.kind != "plat":
                sched.step()
        val_loss''').replace('''        if cfg.kind == "plat":
            sched.step(val_loss)
        else:
            sched.step()''', '''        if cfg.kind == "plat":
            sched.step(val_loss)''')
    assert codes(src) == ["LRD002"]


def test_mean_of_a_list_of_validation_losses_is_the_validation_loss() -> None:
    src = RUNNING_VALIDATION.replace('''    running, seen = 0.0, 0
    bar = tqdm(enumerate(valid_loader), total=len(valid_loader))
    for step, (x, y) in bar:
        with torch.no_grad():
            loss = criterion(model(x), y)
        running += loss.item() * x.size(0)
        seen += x.size(0)
    epoch_loss = running / seen''', '''    losses = []
    tk = tqdm(valid_loader)
    for x, y in tk:
        with torch.no_grad():
            loss = criterion(model(x), y)
        losses.append(loss.item())
    epoch_loss = sum(losses) / len(losses)''')
    assert "losses.append" in src
    assert "LRD004" not in codes(src)
    over_training = src.replace("valid_loader", "train_loader")
    assert "LRD004" in codes(over_training)


# 4. The Kaggle baseline shape `if CFG.batch_scheduler: scheduler.step()` written outside the
#    gradient-accumulation block: the scheduler steps every micro-batch while the optimizer
#    steps every CFG.gradient_accumulation_steps of them (LRD017). The guard was taken for a
#    test of its own that may skip micro-batches (`if is_last_batch:`); a test that comes out
#    the same on every pass (a config class's constant, a setting nothing in the loop
#    changes) steps it on every micro-batch whenever it holds.

PER_BATCH_FLAG = """
import torch
from transformers import get_cosine_schedule_with_warmup


class CFG:
    epochs = 3
    gradient_accumulation_steps = 4
    batch_scheduler = True


def train_fn(train_loader, model, optimizer, scheduler):
    model.train()
    for step, (x, y) in enumerate(train_loader):
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss = loss / CFG.gradient_accumulation_steps
        loss.backward()
        if (step + 1) % CFG.gradient_accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
        if CFG.batch_scheduler:
            scheduler.step()


def train_loop(model, train_loader):
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
    num_train_steps = int(len(train_loader) * CFG.epochs / CFG.gradient_accumulation_steps)
    scheduler = get_cosine_schedule_with_warmup(optimizer, 0, num_train_steps)
    for epoch in range(CFG.epochs):
        train_fn(train_loader, model, optimizer, scheduler)
"""


def test_setting_guard_outside_the_accumulation_block_steps_every_micro_batch() -> None:
    found = [m for m in messages(PER_BATCH_FLAG) if "every micro-batch" in m]
    assert len(found) == 1 and found[0].startswith("When `CFG.batch_scheduler`, ")
    assert codes(PER_BATCH_FLAG) == ["LRD017"]


def test_setting_guard_inside_the_accumulation_block_is_silent() -> None:
    src = PER_BATCH_FLAG.replace("""            optimizer.zero_grad()
        if CFG.batch_scheduler:
            scheduler.step()""", """            optimizer.zero_grad()
            if CFG.batch_scheduler:
                scheduler.step()""")
    assert codes(src) == []


def test_flag_the_loop_sets_per_batch_is_a_guard_of_its_own() -> None:
    src = PER_BATCH_FLAG.replace("""        if CFG.batch_scheduler:
            scheduler.step()""", """        last = step == len(train_loader) - 1
        if last:
            scheduler.step()""")
    assert "LRD017" not in codes(src)


def test_attribute_a_method_changes_is_a_guard_of_its_own() -> None:
    src = PER_BATCH_FLAG.replace("""        if CFG.batch_scheduler:
            scheduler.step()""", """        if CFG.batch_scheduler:
            scheduler.step()
        mark(step)""").replace("def train_loop(", '''def mark(step):
    CFG.batch_scheduler = step % 4 == 3


def train_loop(''')
    assert "LRD017" not in codes(src)


def test_setting_guard_with_a_horizon_in_micro_batches_is_silent() -> None:
    src = PER_BATCH_FLAG.replace(
        "int(len(train_loader) * CFG.epochs / CFG.gradient_accumulation_steps)",
        "len(train_loader) * CFG.epochs")
    assert "LRD017" not in codes(src)


DICT_FLAG = """
import torch
from transformers import get_linear_schedule_with_warmup


def train(cfg, model, loader):
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"])
    total = len(loader) * cfg["epochs"] // cfg["accum"]
    sched = get_linear_schedule_with_warmup(opt, 100, total)
    for epoch in range(cfg["epochs"]):
        for i, batch in enumerate(loader):
            (model(batch).mean() / cfg["accum"]).backward()
            if (i + 1) % cfg["accum"] == 0:
                opt.step()
                opt.zero_grad()
            if cfg["step_per_batch"]:
                sched.step()
"""


def test_flag_of_a_config_the_file_never_fills_is_left_alone() -> None:
    # `cfg` is a parameter: its value may be False for every run, stepping once per epoch
    assert codes(DICT_FLAG) == []


ARGS_FLAG = """
import argparse

import torch
from transformers import get_linear_schedule_with_warmup

parser = argparse.ArgumentParser()
parser.add_argument("--accum", type=int, default=8)
parser.add_argument("--epochs", type=int, default=3)
parser.add_argument("--step_per_batch", type=int, default=1)
args = parser.parse_args()


def train(model, loader):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    total = len(loader) * args.epochs // args.accum
    sched = get_linear_schedule_with_warmup(opt, 100, total)
    for epoch in range(args.epochs):
        for i, batch in enumerate(loader):
            (model(batch).mean() / args.accum).backward()
            if (i + 1) % args.accum == 0:
                opt.step()
                opt.zero_grad()
            if args.step_per_batch:
                sched.step()
"""


def test_setting_on_by_default_outside_the_accumulation_block_steps_every_micro_batch() -> None:
    assert codes(ARGS_FLAG) == ["LRD017"]
    assert codes(ARGS_FLAG.replace('"--step_per_batch", type=int, default=1',
                                   '"--step_per_batch", type=int, default=0')) == []


def test_config_dict_flag_the_loop_rewrites_is_a_guard_of_its_own() -> None:
    src = DICT_FLAG.replace('            if cfg["step_per_batch"]:',
                            '            cfg["step_per_batch"] = i % 2 == 0\n'
                            '            if cfg["step_per_batch"]:')
    assert "LRD017" not in codes(src)
