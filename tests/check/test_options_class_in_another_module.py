"""Command-line settings parsed by an options class of another module (lead62, from a dev
case's false LRD003: an image-to-image trainer of the pix2pix lineage). The driver binds
``opt = TrainOptions().parse()`` with the class imported from the project's options module
(its ``parse`` method, or a base class's, calls ``parse_args()``), hands ``opt`` to a model
class in a third module, and a ``StepLR(step_size=opt.lr_decay_iters)`` whose help text says
"iterations" is stepped once per epoch. The option's default (50 of 200 epochs) says epochs:
the word is a misnomer and nothing is wrong. The default was read only when the parser lived
in the driver's own module, so the help text's word decided and LRD003 was reported. A
default that does count batches (5,000 with 200 epochs) is still reported. The same when the
StepLR is built by a helper given the setting as a keyword-only parameter (``StepLR(opt,
step_size=step_size)``; metamorphic.py's builder rewrite of the same case)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project

OPTIONS = """
import argparse


class TrainOptions:
    def initialize(self, parser):
        parser.add_argument("--epoch_count", type=int, default=1)
        parser.add_argument("--n_epochs", type=int, default=100)
        parser.add_argument("--n_epochs_decay", type=int, default=100)
        parser.add_argument("--lr_policy", type=str, default="linear")
        parser.add_argument("--lr_decay_iters", type=int, default={every},
                            help="multiply by a gamma every lr_decay_iters iterations")
        return parser

    def parse(self):
        parser = self.initialize(argparse.ArgumentParser())
        return parser.parse_args()
"""

# the same options split over a base class that parses and a subclass that adds the
# training options, each in its own module
BASE_OPTIONS = """
import argparse


class BaseOptions:
    def initialize(self, parser):
        parser.add_argument("--name", type=str, default="run")
        return parser

    def parse(self):
        parser = self.initialize(argparse.ArgumentParser())
        self.opt = parser.parse_args()
        return self.opt
"""

TRAIN_OPTIONS = """
from options.base_options import BaseOptions


class TrainOptions(BaseOptions):
    def initialize(self, parser):
        parser = BaseOptions.initialize(self, parser)
        parser.add_argument("--epoch_count", type=int, default=1)
        parser.add_argument("--n_epochs", type=int, default=100)
        parser.add_argument("--n_epochs_decay", type=int, default=100)
        parser.add_argument("--lr_policy", type=str, default="linear")
        parser.add_argument("--lr_decay_iters", type=int, default={every},
                            help="multiply by a gamma every lr_decay_iters iterations")
        return parser
"""

MODEL = """
import torch
from torch.optim import lr_scheduler


def get_scheduler(optimizer, opt):
    if opt.lr_policy == "linear":
        def rule(epoch):
            return 1.0 - max(0, epoch + opt.epoch_count - opt.n_epochs) / float(opt.n_epochs_decay + 1)
        return lr_scheduler.LambdaLR(optimizer, lr_lambda=rule)
    elif opt.lr_policy == "step":
        return lr_scheduler.StepLR(optimizer, step_size=opt.lr_decay_iters, gamma=0.1)
    raise NotImplementedError(opt.lr_policy)


class Model:
    def __init__(self, opt):
        self.net = torch.nn.Linear(2, 2)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=2e-4)
        self.scheduler = get_scheduler(self.optimizer, opt)

    def optimize(self, x):
        self.optimizer.zero_grad()
        self.net(x).sum().backward()
        self.optimizer.step()

    def update_learning_rate(self):
        self.scheduler.step()
"""

TRAIN = """
import torch
from {options} import TrainOptions
from models.model import Model

opt = TrainOptions().parse()
model = Model(opt)
loader = torch.utils.data.DataLoader(torch.randn(64, 2), batch_size=8)
for epoch in range(opt.epoch_count, opt.n_epochs + opt.n_epochs_decay + 1):
    for x in loader:
        model.optimize(x)
    model.update_learning_rate()
"""


# the StepLR built by a helper that takes its settings as keyword-only parameters
BUILDER = """
def _build_step(optimizer, *, step_size, gamma):
    return lr_scheduler.StepLR(optimizer, step_size=step_size, gamma=gamma)
"""
BUILT = MODEL.replace(
    "lr_scheduler.StepLR(optimizer, step_size=opt.lr_decay_iters, gamma=0.1)",
    "_build_step(optimizer, step_size=opt.lr_decay_iters, gamma=0.1)",
).replace("\n\ndef get_scheduler", BUILDER + "\n\ndef get_scheduler")


def _project(every: int, split: bool, built: bool = False) -> dict[str, str]:
    files = {"models/__init__.py": "", "models/model.py": BUILT if built else MODEL,
             "options/__init__.py": ""}
    if split:
        files["options/base_options.py"] = BASE_OPTIONS
        files["options/train_options.py"] = TRAIN_OPTIONS.format(every=every)
        files["train.py"] = TRAIN.format(options="options.train_options")
    else:
        files["options/train_options.py"] = OPTIONS.format(every=every)
        files["train.py"] = TRAIN.format(options="options.train_options")
    return files


@pytest.mark.parametrize("built", [False, True], ids=["in-place", "through-a-builder"])
@pytest.mark.parametrize("split", [False, True], ids=["one-class", "base-and-subclass"])
def test_an_epoch_sized_default_behind_an_iterations_name_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, split: bool, built: bool) -> None:
    assert "_build_step(optimizer, step_size" in BUILT
    assert check_project(tmp_path, monkeypatch, _project(50, split, built)) == []


@pytest.mark.parametrize("built", [False, True], ids=["in-place", "through-a-builder"])
@pytest.mark.parametrize("split", [False, True], ids=["one-class", "base-and-subclass"])
def test_a_batch_sized_default_stepped_per_epoch_is_still_lrd003(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, split: bool, built: bool) -> None:
    found = check_project(tmp_path, monkeypatch, _project(5000, split, built))
    assert [(path, code) for path, _, code in found] == [("models/model.py", "LRD003")]
