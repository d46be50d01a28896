"""A model class picked by a setting: each of the project's classes on its own branch.

Programs written for these tests; no third-party code.

Research code often builds its model through a factory that picks a class by a setting read
at run time: `if opt["model"] == "sr": from .sr import SRModel as M` / `elif ...: from .gan
import GANModel as M` / `m = M(opt)`, or `if cfg.arch == "a": model = ArchA(cfg) else: model =
ArchB(cfg)`. The checker used to keep one class (the last import in the file, the last
branch), so a bug in the other class's schedule went unseen. Each class is now traced on its
own branch of the choice: a bug of one class is reported (it happens whenever the setting
picks that class), and the events of two classes never mix (one's scheduler step is never
ordered against the other's optimizer step).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, project_codes

BASE = """
class BaseModel:
    def __init__(self, opt):
        self.opt = opt
        self.optimizers = []
        self.schedulers = []

    def update_learning_rate(self):
        for scheduler in self.schedulers:
            scheduler.step()
"""

SR = """
import torch
from .base import BaseModel


class SRModel(BaseModel):
    def __init__(self, opt):
        super().__init__(opt)
        self.net = torch.nn.Linear(4, 4)
        self.opt_g = torch.optim.Adam(self.net.parameters(), lr=1e-4)
        self.optimizers.append(self.opt_g)
        for optimizer in self.optimizers:
            self.schedulers.append(torch.optim.lr_scheduler.MultiStepLR(optimizer, [1000], 0.5))

    def feed(self, data):
        self.x = data

    def optimize(self):
        self.opt_g.zero_grad()
        self.net(self.x).pow(2).mean().backward()
        self.opt_g.step()
"""

GAN = """
import torch
from .base import BaseModel


class GANModel(BaseModel):
    def __init__(self, opt):
        super().__init__(opt)
        self.net = torch.nn.Linear(4, 4)
        self.opt_g = torch.optim.Adam(self.net.parameters(), lr=1e-4)
        self.optimizers.append(self.opt_g)

    def feed(self, data):
        self.x = data

    def optimize(self):
        self.opt_g.zero_grad()
        self.net(self.x).pow(2).mean().backward()
        self.opt_g.step()
"""

FACTORY = """
def create_model(opt):
    kind = opt["model"]
    if kind == "sr":
        from .sr import SRModel as M
    elif kind == "gan":
        from .gan import GANModel as M
    else:
        raise NotImplementedError(kind)
    return M(opt)
"""

DRIVER = """
import json
import sys

import torch
from models import create_model


def main():
    opt = json.load(open(sys.argv[1]))
    loader = torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=8)
    model = create_model(opt)
    for epoch in range(10):
        for data in loader:
            ORDER


if __name__ == "__main__":
    main()
"""

BEFORE = "model.update_learning_rate()\n            model.feed(data)\n            model.optimize()"
AFTER = "model.feed(data)\n            model.optimize()\n            model.update_learning_rate()"


def project(order: str, factory: str = FACTORY) -> dict[str, str]:
    return {"train.py": DRIVER.replace("ORDER", order), "models/__init__.py": factory,
            "models/base.py": BASE, "models/sr.py": SR, "models/gan.py": GAN}


def test_factory_importing_the_class_on_each_branch_traces_the_one_with_the_bug(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the schedulers step before the first update of the iteration when the setting picks
    # "sr" (GANModel has no scheduler); the class imported last in the file is GANModel
    found = check_project(tmp_path, monkeypatch, project(BEFORE))
    assert found == [("models/base.py", 10, "LRD001")]


def test_factory_stepping_after_the_update_is_right(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert check_project(tmp_path, monkeypatch, project(AFTER)) == []


def test_the_class_with_the_bug_imported_last_is_found_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    swapped = FACTORY.replace('kind == "sr"', 'kind == "x"').replace(
        "from .sr import SRModel as M", "from .gan import GANModel as M_").replace(
        'elif kind == "gan":\n        from .gan import GANModel as M',
        'elif kind == "sr":\n        from .sr import SRModel as M')
    assert "from .sr import SRModel as M\n" in swapped
    assert project_codes(check_project(tmp_path, monkeypatch, project(BEFORE, swapped))) \
        == ["LRD001"]


INLINE = """
import argparse

import torch


class Plain(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 4)
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=0.1)

    def train_epoch(self, loader):
        for x in loader:
            self.optimizer.zero_grad()
            self.net(x).pow(2).mean().backward()
            self.optimizer.step()

    def end_epoch(self):
        pass


class Cycled(torch.nn.Module):
    def __init__(self, steps):
        super().__init__()
        self.net = torch.nn.Linear(4, 4)
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=0.1)
        self.scheduler = torch.optim.lr_scheduler.OneCycleLR(
            self.optimizer, max_lr=0.1, total_steps=steps)

    def train_epoch(self, loader):
        for x in loader:
            self.optimizer.zero_grad()
            self.net(x).pow(2).mean().backward()
            self.optimizer.step()
            BATCH

    def end_epoch(self):
        EPOCH


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", default="plain")
    ap.add_argument("--epochs", type=int, default=20)
    args = ap.parse_args()
    loader = torch.utils.data.DataLoader(torch.randn(256, 4), batch_size=32)
    if args.arch == "cycled":
        model = Cycled(args.epochs * len(loader))
    else:
        model = Plain()
    for epoch in range(args.epochs):
        model.train_epoch(loader)
        model.end_epoch()


main()
"""


def test_instances_built_on_two_branches_are_each_traced() -> None:
    # OneCycleLR sized in batches, stepped once per epoch, in the class built on the first
    # branch (the last branch builds a class without a schedule)
    bug = INLINE.replace("BATCH", "pass").replace("EPOCH", "self.scheduler.step()")
    assert codes(bug) == ["LRD003"]


def test_instances_built_on_two_branches_stepped_right_stay_silent() -> None:
    right = INLINE.replace("BATCH", "self.scheduler.step()").replace("EPOCH", "pass")
    assert codes(right) == []


TWO_ORDERS = """
import argparse

import torch


class StepsFirst:
    def __init__(self, net):
        self.optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, 30)
        self.net = net

    def before(self):
        pass

    def update(self, x):
        self.optimizer.zero_grad()
        self.net(x).pow(2).mean().backward()
        self.optimizer.step()

    def after(self):
        self.scheduler.step()


class NoSchedule:
    def __init__(self, net):
        self.optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
        self.net = net

    def before(self):
        pass

    def update(self, x):
        self.optimizer.zero_grad()
        self.net(x).pow(2).mean().backward()
        self.optimizer.step()

    def after(self):
        pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sched", action="store_true")
    args = ap.parse_args()
    net = torch.nn.Linear(4, 4)
    loader = torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=8)
    if args.sched:
        runner = StepsFirst(net)
    else:
        runner = NoSchedule(net)
    for epoch in range(90):
        runner.before()
        for x in loader:
            runner.update(x)
        runner.after()


main()
"""


def test_each_class_runs_alone_on_its_branch() -> None:
    # per epoch, after the epoch's updates: right for the class that has a schedule
    assert codes(TWO_ORDERS) == []
    # the scheduled class stepping in `before` is LRD001 (its first step precedes any update)
    bug = TWO_ORDERS.replace("    def before(self):\n        pass\n\n    def update(self, x):\n"
                             "        self.optimizer.zero_grad()\n        self.net(x).pow(2).mean()"
                             ".backward()\n        self.optimizer.step()\n\n    def after(self):\n"
                             "        self.scheduler.step()",
                             "    def before(self):\n        self.scheduler.step()\n\n"
                             "    def update(self, x):\n        self.optimizer.zero_grad()\n"
                             "        self.net(x).pow(2).mean().backward()\n"
                             "        self.optimizer.step()\n\n    def after(self):\n        pass",
                             1)
    assert bug != TWO_ORDERS
    assert codes(bug) == ["LRD001"]


ATTRIBUTES = """
import argparse

import torch


class A:
    def __init__(self):
        self.net = torch.nn.Linear(4, 4)
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=0.1)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=30)


class B:
    def __init__(self):
        self.net = torch.nn.Linear(4, 4)
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=0.1)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=30)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", default="a")
    args = ap.parse_args()
    loader = torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=8)
    if args.arch == "a":
        model = A()
    else:
        model = B()
    for epoch in range(90):
        for x in loader:
            model.optimizer.zero_grad()
            model.net(x).pow(2).mean().backward()
            model.optimizer.step()
            BATCH
        EPOCH


main()
"""


def test_attributes_of_a_choice_of_instances_are_still_tracked() -> None:
    # `model.scheduler` / `model.optimizer` read on the choice: a StepLR sized in epochs (30
    # of 90) stepped every batch decays 8 times an epoch
    bug = ATTRIBUTES.replace("BATCH", "model.scheduler.step()").replace("EPOCH", "pass")
    assert codes(bug) == ["LRD002"]


def test_attributes_of_a_choice_of_instances_stepped_per_epoch_are_right() -> None:
    right = ATTRIBUTES.replace("BATCH", "pass").replace("EPOCH", "model.scheduler.step()")
    assert codes(right) == []
