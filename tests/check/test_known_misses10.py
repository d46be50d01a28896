"""A horizon's unit comes from what the program does, not from a word (issue 7, fixes10).

The evidence for "this horizon counts epochs / batches" is ranked: what the value is computed
from (``len(loader) * epochs``), the count of the loop the scheduler steps in, what the author
wrote about it (a docstring, an argparse ``help=``), and last the word in its name. Each test
below gives a name that says one unit while the program says the other (silent), next to the
same program without that evidence (still reported). Then KLUE's shape: a literal horizon
handed to a Hugging Face Trainer that the run's epochs certainly outlast (LRD010).

Programs written for these tests; no third-party code."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, messages, project_codes

# 1. An argparse `help=` is the author's statement of the unit: it outranks the option's name.

PER_EPOCH = """
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--total_steps", type=int, default={default}{help})
args = parser.parse_args()

model = torch.nn.Linear(8, 1)
loader = torch.utils.data.DataLoader(torch.randn(256, 8), batch_size=16)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.total_steps)
for epoch in range(args.epochs):
    for x in loader:
        optimizer.zero_grad()
        model(x).sum().backward()
        optimizer.step()
    scheduler.step()
"""


@pytest.mark.parametrize("text", ["number of training epochs", "cosine length, in epochs",
                                  "Total epochs of the schedule (default: %(default)s)"])
def test_a_steps_named_option_documented_in_epochs_stepped_per_epoch_is_silent(text: str) -> None:
    assert codes(PER_EPOCH.format(default=30, help=f", help={text!r}")) == []


@pytest.mark.parametrize("help_text", ["", ", help='total number of optimizer steps'",
                                       ", help='cosine period'",
                                       # both units: the help states neither, the name decides
                                       ", help='steps over all epochs'"])
def test_a_steps_named_option_not_documented_in_epochs_is_still_lrd003(help_text: str) -> None:
    assert codes(PER_EPOCH.format(default=3000, help=help_text)) == ["LRD003"]


@pytest.mark.parametrize("help_text", ["", ", help='total number of optimizer steps'",
                                       ", help='cosine period'"])
def test_a_steps_named_option_whose_default_fits_the_epochs_is_silent(help_text: str) -> None:
    # lead53 (reverses fixes10's reading): a default of 30 "steps" in a 30-epoch run stepped
    # once per epoch is a cosine that plays out exactly over the run; per batch the same 30
    # would end within the first two epochs. The numbers the program states say epochs; the
    # word is a misnomer and nothing is "far from complete"
    assert codes(PER_EPOCH.format(default=30, help=help_text)) == []


PER_BATCH = """
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--num_epochs", type=int, default=5000{help})
args = parser.parse_args()

model = torch.nn.Linear(8, 1)
loader = torch.utils.data.DataLoader(torch.randn(256, 8), batch_size=16)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.num_epochs)
for epoch in range(10):
    for x in loader:
        optimizer.zero_grad()
        model(x).sum().backward()
        optimizer.step()
        scheduler.step()
"""


@pytest.mark.parametrize("text", ["how many iterations to train for", "total updates"])
def test_an_epochs_named_option_documented_in_iterations_stepped_per_batch_is_silent(
        text: str) -> None:
    assert codes(PER_BATCH.format(help=f", help={text!r}")) == []


@pytest.mark.parametrize("help_text", ["", ", help='number of epochs'",
                                       ", help='length of the run'"])
def test_an_epochs_named_option_not_documented_otherwise_is_still_lrd002(help_text: str) -> None:
    assert codes(PER_BATCH.format(help=help_text)) == ["LRD002"]


ECHOED = """
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--lr_step", type=int, default=30, help={help!r})
args = parser.parse_args()

model = torch.nn.Linear(8, 1)
loader = torch.utils.data.DataLoader(torch.randn(256, 8), batch_size=16)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=args.lr_step)
for epoch in range(90):
    for x in loader:
        optimizer.zero_grad()
        model(x).sum().backward()
        optimizer.step()
    scheduler.step()
"""


def test_a_help_text_that_only_echoes_the_parameter_says_no_unit() -> None:
    # StepLR's step_size, documented as "decay steps": the schedule's own word, not batches
    assert codes(ECHOED.format(help="decay the LR every this many steps")) == []
    # a help that names iterations states the unit; a decay every 30 of 90 epochs still plays
    # out within the run stepped per epoch (lead53), while 3000 "iterations" would never come
    assert codes(ECHOED.format(help="decay the LR every this many iterations")) == []
    assert codes(ECHOED.format(help="decay the LR every this many iterations")
                 .replace("default=30", "default=3000")) == ["LRD003"]


# 2. The count of the loop the scheduler steps in: a `while` loop's bound, like a `for` loop's
# `range(n)`, is the number of passes it makes, whatever the bound is called.

WHILE = """
import torch


class Cfg:
    max_iter = 300


cfg = Cfg()
model = torch.nn.Linear(8, 1)
loader = torch.utils.data.DataLoader(torch.randn(256, 8), batch_size=16)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=cfg.max_iter)
epoch = 0
while {test}:
    for x in loader:
        optimizer.zero_grad()
        model(x).sum().backward()
        optimizer.step()
    scheduler.step()
    epoch += 1
"""


@pytest.mark.parametrize("test", ["epoch < cfg.max_iter", "cfg.max_iter > epoch",
                                  "epoch <= cfg.max_iter"])
def test_a_horizon_that_is_the_bound_of_its_while_loop_is_not_lrd003(test: str) -> None:
    # `epoch <= cfg.max_iter` counted from 0 makes one pass more than total_steps: the last
    # step raises, LRD010 (rcnew124), still not LRD003
    overrun = ["LRD010"] if "<=" in test else []
    assert codes(WHILE.format(test=test)) == overrun


@pytest.mark.parametrize("test", ["epoch < 30", "epoch < cfg.epochs"])
def test_a_batch_horizon_beside_another_while_bound_is_still_lrd003(test: str) -> None:
    assert codes(WHILE.format(test=test)) == ["LRD003"]


# 3. A literal horizon handed to a Hugging Face Trainer, which steps it after every update.
# Every epoch makes at least one update; when the horizon is passed as soon as an epoch has
# more than two, only a training set of a couple of batches keeps it in bounds: LRD010.

HF = """
import argparse
import torch
from transformers import AutoModelForSequenceClassification, Trainer, TrainingArguments
{imports}
parser = argparse.ArgumentParser()
parser.add_argument("--num_epochs", type=int, default={epochs})
args = parser.parse_args()

model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased")
training_args = TrainingArguments(output_dir="out", num_train_epochs=args.num_epochs,
                                  per_device_train_batch_size=32)
optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
scheduler = {scheduler}
trainer = Trainer(model=model, args=training_args, train_dataset=None,
                  optimizers=(optimizer, scheduler))
trainer.train()
"""


def hf(scheduler: str, epochs: int = 50, imports: str = "") -> str:
    return HF.format(scheduler=scheduler, epochs=epochs, imports=imports)


COSINE = "torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max={n}, eta_min=0)"


@pytest.mark.parametrize("n", [100, 120, 149])
def test_a_literal_cosine_the_trainer_outruns_is_lrd010(n: int) -> None:
    assert codes(hf(COSINE.format(n=n))) == ["LRD010"]


def test_the_lrd010_message_says_when_it_would_not_overrun() -> None:
    (message,) = messages(hf(COSINE.format(n=100)))
    assert "T_max=100" in message and "50 epochs" in message
    assert "unless an epoch has at most 2 updates" in message


@pytest.mark.parametrize("n", [150, 1000, 20000])
def test_a_literal_horizon_a_real_data_set_may_fit_is_silent(n: int) -> None:
    # three or more updates per epoch fit it: how many the data set gives is not known
    assert codes(hf(COSINE.format(n=n))) == []


def test_a_literal_horizon_within_the_epochs_stays_lrd002_alone() -> None:
    assert codes(hf(COSINE.format(n=20))) == ["LRD002"]


def test_a_one_cycle_shorter_than_the_epochs_is_lrd010() -> None:
    found = messages(hf("torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-4, "
                        "total_steps=30)"))
    assert len(found) == 1 and "within the first 30 epochs" in found[0]
    assert codes(hf("torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-4, "
                    "total_steps=30)")) == ["LRD010"]


def test_a_hugging_face_warm_up_with_a_literal_length_is_lrd010() -> None:
    imports = "from transformers import get_linear_schedule_with_warmup\n"
    assert codes(hf("get_linear_schedule_with_warmup(optimizer, 10, 100)",
                    imports=imports)) == ["LRD010"]
    assert codes(hf("get_linear_schedule_with_warmup(optimizer, 10, 10000)",
                    imports=imports)) == []


def test_a_horizon_from_the_run_or_of_unknown_length_is_not_lrd010() -> None:
    # counted from the data (`len(loader) * epochs`): not a literal
    assert "LRD010" not in codes(hf(
        "torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=len(train_loader) * 50)"))
    # max_steps decides the run's length: the epochs are not known
    src = hf(COSINE.format(n=100)).replace("num_train_epochs=args.num_epochs",
                                             "max_steps=5000")
    assert "LRD010" not in codes(src)


# 4. An LR factor (LambdaLR) reads its horizon from names: a name assigned from the epochs
# counts epochs, whatever it is called.

FACTOR = """
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=30)
args = parser.parse_args()

model = torch.nn.Linear(8, 1)
loader = torch.utils.data.DataLoader(torch.randn(256, 8), batch_size=16)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
total_steps = {total}
{factor}
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, {name})
for epoch in range(args.epochs):
    for x in loader:
        optimizer.zero_grad()
        model(x).sum().backward()
        optimizer.step()
    scheduler.step()
"""
LAMBDA = ("", "lambda step: 1 - step / total_steps")
FUNCTION = ("def decay(step):\n    return 1 - step / total_steps\n", "decay")


@pytest.mark.parametrize("factor, name", [LAMBDA, FUNCTION])
def test_a_factor_over_a_steps_name_assigned_the_epochs_is_silent(factor: str, name: str) -> None:
    assert codes(FACTOR.format(total="args.epochs", factor=factor, name=name)) == []
    assert codes(FACTOR.format(total="args.epochs - 5", factor=factor, name=name)) == []


@pytest.mark.parametrize("factor, name", [LAMBDA, FUNCTION])
@pytest.mark.parametrize("total", ["args.epochs * len(loader)", "10000"])
def test_a_factor_over_a_count_of_batches_is_still_lrd003(factor: str, name: str,
                                                          total: str) -> None:
    assert codes(FACTOR.format(total=total, factor=factor, name=name)) == ["LRD003"]


# 5. The options are often declared in a module of their own; their help is read there.

OPTIONS = """
import argparse


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--total_steps", type=int, default={default}{help})
    return parser.parse_args()
"""
TRAIN = """
import torch
{imports}

{bind}
model = torch.nn.Linear(8, 1)
loader = torch.utils.data.DataLoader(torch.randn(256, 8), batch_size=16)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.total_steps)
for epoch in range(args.epochs):
    for x in loader:
        optimizer.zero_grad()
        model(x).sum().backward()
        optimizer.step()
    scheduler.step()
"""
IMPORTS = [("from options import parse_args", "args = parse_args()"),
           ("import options", "args = options.parse_args()")]


@pytest.mark.parametrize("imports, bind", IMPORTS)
def test_an_option_documented_in_epochs_in_its_own_module_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, imports: str, bind: str) -> None:
    files = {"options.py": OPTIONS.format(default=30, help=", help='number of epochs of the cosine'"),
             "train.py": TRAIN.format(imports=imports, bind=bind)}
    assert project_codes(check_project(tmp_path, monkeypatch, files)) == []


@pytest.mark.parametrize("imports, bind", IMPORTS)
def test_an_option_not_documented_in_its_own_module_is_still_lrd003(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, imports: str, bind: str) -> None:
    files = {"options.py": OPTIONS.format(default=3000, help=""),
             "train.py": TRAIN.format(imports=imports, bind=bind)}
    assert project_codes(check_project(tmp_path, monkeypatch, files)) == ["LRD003"]


@pytest.mark.parametrize("imports, bind", IMPORTS)
def test_an_option_in_its_own_module_whose_default_fits_the_epochs_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, imports: str, bind: str) -> None:
    # lead53: the default (30) is read in the module that declares it, as the help is
    files = {"options.py": OPTIONS.format(default=30, help=""),
             "train.py": TRAIN.format(imports=imports, bind=bind)}
    assert project_codes(check_project(tmp_path, monkeypatch, files)) == []
