"""Shapes seen in the fresh-2026-12zzw122 batch (rcnew122, bench/realcode/README.md):
optimizers rebuilt per stage while a scheduler may keep the old one, and several optimizers
or schedulers in one program.

Programs written for these tests; no third-party code.

The batch's dev cases were right at first sight (one labelling erratum). Probing the family
found three gaps, fixed:

- a list of optimizers built again for the next phase (``optimizers = [SGD(a), SGD(b)]``)
  did not replace the optimizer at each position, so a scheduler built on ``optimizers[0]``
  of the first list was not reported (LRD014);
- an optimizer object read back from a checkpoint under the optimizer's name (``optimizer =
  ckpt["optimizer"]`` after ``ckpt = torch.load(path)``) was no replacement at all; it is now
  (LRD014 when a scheduler built before keeps the first one and the loaded one is stepped),
  while LRD007 still judges the checkpoint by the schedulers of the optimizer it continues;
- a replacement made in a method called on one branch of an ``if`` (``if args.export:
  runner.export()`` / ``else: runner.fit()``) was judged stale against steps on the other
  branch of that same run of the ``if``, in the caller both descend from.
"""

from __future__ import annotations

import pytest

from .helpers import codes

LIST_PHASES = '''
import torch
from torch import optim


def train(net, loader, warm, epochs):
    opts = [optim.SGD(net.body.parameters(), lr=1e-4), optim.SGD(net.head.parameters(), lr=1e-4)]
    sched = optim.lr_scheduler.CosineAnnealingLR(opts[0], T_max=epochs)
    for _ in range(warm):
        for x, y in loader:
            net.zero_grad()
            net(x, y).backward()
            for o in opts:
                o.step()
    opts = [optim.SGD(net.body.parameters(), lr=0.1), optim.SGD(net.head.parameters(), lr=0.1)]
REBUILT
    for _ in range(epochs):
        for x, y in loader:
            net.zero_grad()
            net(x, y).backward()
            for o in opts:
                o.step()
        sched.step()
'''


def test_list_of_optimizers_rebuilt_leaves_the_scheduler_behind() -> None:
    assert codes(LIST_PHASES.replace("REBUILT", "")) == ["LRD014"]


def test_list_of_optimizers_rebuilt_with_its_scheduler_is_silent() -> None:
    rebuilt = "    sched = optim.lr_scheduler.CosineAnnealingLR(opts[0], T_max=epochs)"
    assert codes(LIST_PHASES.replace("REBUILT", rebuilt)) == []


def test_list_reordering_the_same_optimizers_is_silent() -> None:
    source = '''
import torch
from torch import optim


def train(gen, disc, loader, epochs):
    og = optim.Adam(gen.parameters(), lr=2e-4)
    od = optim.Adam(disc.parameters(), lr=2e-4)
    sg = optim.lr_scheduler.StepLR(og, step_size=10)
    sd = optim.lr_scheduler.StepLR(od, step_size=10)
    order = [og, od]
    for epoch in range(epochs):
        order = [od, og] if epoch % 2 else [og, od]
        for x in loader:
            for o in order:
                o.zero_grad()
                (gen(x).mean() + disc(x).mean()).backward()
                o.step()
        sg.step()
        sd.step()
'''
    assert codes(source) == []


def test_schedulers_over_a_builders_list_left_on_the_first_list() -> None:
    source = '''
import torch
from torch import optim


def make(net, lr):
    return [optim.SGD(net.body.parameters(), lr=lr), optim.SGD(net.head.parameters(), lr=lr)]


def train(net, loader, warm, epochs):
    opts = make(net, 1e-4)
    scheds = [optim.lr_scheduler.StepLR(o, step_size=5) for o in opts]
    for _ in range(warm):
        for x, y in loader:
            net.zero_grad()
            net(x, y).backward()
            for o in opts:
                o.step()
    opts = make(net, 0.1)
    for _ in range(epochs):
        for x, y in loader:
            net.zero_grad()
            net(x, y).backward()
            for o in opts:
                o.step()
        for s in scheds:
            s.step()
'''
    assert codes(source) == ["LRD014"]


RESUME_PICKLED = '''
import torch
from torch import nn, optim


def main(loader, resume=None, epochs=20):
    net = nn.Linear(4, 2)
    opt = optim.Adam(net.parameters(), lr=1e-3)
BEFORE
    first = 0
    if resume:
        state = torch.load(resume)
        net.load_state_dict(state["net"])
RESTORE
        first = state["epoch"]
AFTER
    for epoch in range(first, epochs):
        for x, y in loader:
            opt.zero_grad()
            nn.functional.cross_entropy(net(x), y).backward()
            opt.step()
        sched.step()
        torch.save({"net": net.state_dict(), "opt": opt, "epoch": epoch + 1,
                    "sched": sched.state_dict()}, "last.pt")
'''

SCHED = "    sched = optim.lr_scheduler.StepLR(opt, step_size=5)"


@pytest.mark.parametrize("restore", [
    '        opt = state["opt"]',
    '        opt = torch.load(resume + ".opt")',
])
def test_pickled_optimizer_swapped_in_after_the_scheduler(restore: str) -> None:
    source = RESUME_PICKLED.replace("BEFORE", SCHED).replace("AFTER", "")
    assert codes(source.replace("RESTORE", restore)) == ["LRD014"]


def test_pickled_optimizer_swapped_in_before_the_scheduler_is_silent() -> None:
    after = "    sched = optim.lr_scheduler.StepLR(opt, step_size=5, last_epoch=first - 1)"
    source = RESUME_PICKLED.replace("BEFORE", "").replace("AFTER", after)
    assert codes(source.replace("RESTORE", '        opt = state["opt"]')) == []


def test_optimizer_state_restored_in_place_is_silent() -> None:
    source = RESUME_PICKLED.replace("BEFORE", SCHED).replace("AFTER", "").replace(
        "RESTORE", '        opt.load_state_dict(state["opt"].state_dict())\n'
                   '        sched.load_state_dict(state["sched"])')
    assert codes(source) == []


def test_loader_handed_the_optimizer_is_no_replacement() -> None:
    source = '''
import torch
from torch import nn, optim
from mytools import load


def main(loader, path, epochs=20):
    net = nn.Linear(4, 2)
    opt = optim.Adam(net.parameters(), lr=1e-3)
    sched = optim.lr_scheduler.StepLR(opt, step_size=5)
    opt = load(path, opt)
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            nn.functional.cross_entropy(net(x), y).backward()
            opt.step()
        sched.step()
'''
    assert codes(source) == []


RUNNER = '''
import torch
from torch import nn, optim


class Runner:
    def __init__(self, net, epochs):
        self.net = net
        self.epochs = epochs
        self.opt = optim.AdamW(net.parameters(), lr=1e-3)
        self.sched = optim.lr_scheduler.CosineAnnealingLR(self.opt, T_max=epochs)

    def restore(self, path):
        saved = torch.load(path)
        self.net.load_state_dict(saved["net"])
        self.opt = saved["opt"]

    def fit(self, loader):
        for epoch in range(self.epochs):
            for x, y in loader:
                self.opt.zero_grad()
                nn.functional.cross_entropy(self.net(x), y).backward()
                self.opt.step()
            self.sched.step()
            torch.save({"net": self.net.state_dict(), "opt": self.opt}, "ck.pt")


def main(args, net, loader):
    runner = Runner(net, args.epochs)
DRIVER
'''


def test_pickled_optimizer_restored_for_evaluation_only() -> None:
    driver = ("    if args.eval_only:\n        runner.restore(args.ckpt)\n"
              "    else:\n        runner.fit(loader)")
    # nothing trains after the restore (whether the checkpoint, which lacks the cosine's
    # state, deserves LRD007 is another question)
    assert "LRD014" not in codes(RUNNER.replace("DRIVER", driver))


def test_pickled_optimizer_restored_then_trained() -> None:
    driver = "    if args.resume:\n        runner.restore(args.ckpt)\n    runner.fit(loader)"
    assert sorted(codes(RUNNER.replace("DRIVER", driver))) == ["LRD007", "LRD014"]


def test_rebuild_on_the_other_branch_of_the_callers_if_is_silent() -> None:
    source = '''
import torch
from torch import nn, optim


class Job:
    def __init__(self, net, epochs):
        self.net = net
        self.epochs = epochs
        self.opt = optim.AdamW(net.parameters(), lr=1e-3)
        self.sched = optim.lr_scheduler.CosineAnnealingLR(self.opt, T_max=epochs)

    def probe(self, loader):
        self.opt = optim.SGD(self.net.fc.parameters(), lr=0.1)
        for x, y in loader:
            self.opt.zero_grad()
            nn.functional.cross_entropy(self.net(x), y).backward()
            self.opt.step()

    def fit(self, loader):
        for epoch in range(self.epochs):
            for x, y in loader:
                self.opt.zero_grad()
                nn.functional.cross_entropy(self.net(x), y).backward()
                self.opt.step()
            self.sched.step()


def main(args, net, loader):
    job = Job(net, args.epochs)
    if args.linear_probe:
        job.probe(loader)
    else:
        job.fit(loader)
'''
    assert codes(source) == []


def test_rebuild_on_a_branch_inside_the_epoch_loop_is_reported() -> None:
    source = '''
import torch
from torch import nn, optim


class Job:
    def __init__(self, net, epochs):
        self.net = net
        self.epochs = epochs
        self.opt = optim.Adam(net.head.parameters(), lr=1e-3)
        self.sched = optim.lr_scheduler.CosineAnnealingLR(self.opt, T_max=epochs)

    def thaw(self):
        for p in self.net.parameters():
            p.requires_grad = True
        self.opt = optim.Adam(self.net.parameters(), lr=1e-4)

    def one_epoch(self, loader):
        for x, y in loader:
            self.opt.zero_grad()
            nn.functional.cross_entropy(self.net(x), y).backward()
            self.opt.step()

    def fit(self, loader, thaw_at=5):
        for epoch in range(self.epochs):
            if epoch == thaw_at:
                self.thaw()
            else:
                self.one_epoch(loader)
            self.sched.step()
'''
    assert codes(source) == ["LRD014"]


def test_phase_method_called_per_stage_is_reported() -> None:
    source = '''
import torch
from torch import nn, optim


class Stages:
    def __init__(self, net):
        self.net = net
        self.opt = optim.SGD(net.head.parameters(), lr=0.1)
        self.sched = optim.lr_scheduler.StepLR(self.opt, step_size=3)

    def phase(self, kind, loader, epochs):
        if kind == "thaw":
            self.opt = optim.SGD(self.net.parameters(), lr=0.01)
        else:
            for epoch in range(epochs):
                for x, y in loader:
                    self.opt.zero_grad()
                    nn.functional.cross_entropy(self.net(x), y).backward()
                    self.opt.step()
                self.sched.step()


def main(net, loader):
    s = Stages(net)
    s.phase("head", loader, 5)
    s.phase("thaw", loader, 0)
    s.phase("all", loader, 10)
'''
    assert codes(source) == ["LRD014"]


def test_wrapper_holding_a_plateau_scheduler_over_the_inner_optimizer_is_silent() -> None:
    source = '''
import torch
from torch import nn, optim


class PlateauStepper(torch.optim.Optimizer):
    def __init__(self, inner, factor=0.5, patience=3):
        self.inner = inner
        self.plateau = optim.lr_scheduler.ReduceLROnPlateau(inner, "min", factor, patience)

    def step(self, *args, **kwargs):
        self.inner.step(*args, **kwargs)

    def zero_grad(self):
        self.inner.zero_grad()

    def on_val(self, value):
        self.plateau.step(value)


def main(loader, val_loss, epochs=10):
    net = nn.Linear(4, 2)
    opt = optim.Adam(net.parameters(), lr=1e-3)
    opt = PlateauStepper(opt)
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            nn.functional.cross_entropy(net(x), y).backward()
            opt.step()
        opt.on_val(val_loss(net))
'''
    assert codes(source) == []


def test_one_onecycle_per_optimizer_is_silent_two_on_one_are_reported() -> None:
    source = '''
import torch
from torch import nn


def train(loader, total, epochs):
    net = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))
    w = [p for p in net.parameters() if p.ndim > 1]
    b = [p for p in net.parameters() if p.ndim <= 1]
    o1 = torch.optim.SGD(w, lr=0.1, momentum=0.9)
    o2 = torch.optim.SGD(b, lr=1.0, momentum=0.9)
    s1 = torch.optim.lr_scheduler.OneCycleLR(o1, max_lr=0.1, total_steps=total)
    s2 = torch.optim.lr_scheduler.OneCycleLR(SECOND, max_lr=1.0, total_steps=total)
    for epoch in range(epochs):
        for x, y in loader:
            nn.functional.cross_entropy(net(x), y).backward()
            o1.step()
            o2.step()
            s1.step()
            s2.step()
            o1.zero_grad(set_to_none=True)
            o2.zero_grad(set_to_none=True)
'''
    assert codes(source.replace("SECOND", "o2")) == []
    assert codes(source.replace("SECOND", "o1")) == ["LRD012"]


@pytest.mark.parametrize("wrap", [
    "    opt = hvd.DistributedOptimizer(opt, named_parameters=net.named_parameters())",
    '    net, opt = amp.initialize(net, opt, opt_level="O1")',
])
def test_wrappers_sharing_the_groups_after_the_scheduler_are_silent(wrap: str) -> None:
    source = f'''
import torch
from torch import nn, optim
import horovod.torch as hvd
from apex import amp


def main(net, loader, epochs=90):
    opt = optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    sched = optim.lr_scheduler.MultiStepLR(opt, milestones=[30, 60])
{wrap}
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            net(x, y).backward()
            opt.step()
        sched.step()
'''
    assert codes(source) == []
