"""A trainer written as an ``nn.Module`` (rcnew51, batch fresh-2026-12ye).

Programs written for these tests; no third-party code.

Some projects write their trainer as a ``torch.nn.Module``: ``loss = trainer(batch)`` runs the
forward pass and the (scaled) backward pass in ``forward``, and ``trainer.update()`` clips,
steps the optimizer and the scheduler. Calling an instance of a project class ran that
class's own ``__call__``; torch's ``Module.__call__`` (a library base's) was left alone, so
what ``forward`` does was not placed in the driver's loop: a clip before ``unscale_`` in
``update()`` after the scaled backward in ``forward`` (LRD108), or an epoch-sized scheduler
stepped in ``forward`` once per batch (LRD002), went unseen. Calling an instance of a
project class that derives from ``nn.Module`` (directly, through a project base, or as
``from torch.nn import Module``) and defines no ``__call__`` now runs its ``forward``.
"""

from __future__ import annotations

import pytest

from .helpers import codes

# a trainer module: scaled backward in forward, the update in its own method ----------------

SCALED = """
import torch
{imports}


{bases}class Trainer({base}):
    def __init__(self, net, max_grad_norm=1.0):
        super().__init__()
        self.net = net
        self.optimizer = torch.optim.AdamW(net.parameters(), lr=1e-4)
        self.scaler = torch.amp.GradScaler("cuda")
        self.max_grad_norm = max_grad_norm

    def {entry}(self, inputs, targets):
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.mse_loss(self.net(inputs), targets)
        self.scaler.scale(loss).backward()
        return loss.item()

    def update(self):
{unscale}        torch.nn.utils.clip_grad_norm_(self.net.parameters(), self.max_grad_norm)
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.optimizer.zero_grad()


def train(net, loader, epochs):
    trainer = Trainer(net)
    for _ in range(epochs):
        for inputs, targets in loader:
            trainer(inputs, targets)
            trainer.update()
"""

UNSCALE = "        self.scaler.unscale_(self.optimizer)\n"

SPELLINGS = {
    "nn.Module": dict(imports="from torch import nn", bases="", base="nn.Module"),
    "torch.nn.Module": dict(imports="", bases="", base="torch.nn.Module"),
    "Module": dict(imports="from torch.nn import Module", bases="", base="Module"),
    "project base": dict(imports="from torch import nn",
                         bases="class Base(nn.Module):\n    pass\n\n\n", base="Base"),
}


def scaled(spelling: str, unscale: str = "", entry: str = "forward") -> str:
    return SCALED.format(unscale=unscale, entry=entry, **SPELLINGS[spelling])


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_clip_before_unscale_across_forward_and_update(spelling: str) -> None:
    assert codes(scaled(spelling)) == ["LRD108"]


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_unscaled_before_clip_is_silent(spelling: str) -> None:
    assert codes(scaled(spelling, unscale=UNSCALE)) == []


def test_a_method_of_another_name_is_not_what_the_call_runs() -> None:
    # `trainer(...)` runs `forward`; a backward pass in a method nobody calls is not placed
    # before the clip
    assert codes(scaled("nn.Module", entry="backprop")) == []


# an epoch-sized scheduler stepped in forward, once per batch ------------------------------

PER_CALL = """
import torch
from torch import nn


class Trainer(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.optimizer = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=30, gamma=0.1)

    def forward(self, inputs, targets):
        loss = nn.functional.cross_entropy(self.net(inputs), targets)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
{in_forward}        return loss.item()

    def end_epoch(self):
{in_epoch}        pass


def main(net, loader):
    trainer = Trainer(net)
    for epoch in range(90):
        for inputs, targets in loader:
            trainer(inputs, targets)
        trainer.end_epoch()
"""

STEP = "        self.scheduler.step()\n"


def test_epoch_scheduler_stepped_in_forward_of_a_module_called_per_batch() -> None:
    assert codes(PER_CALL.format(in_forward=STEP, in_epoch="")) == ["LRD002"]


def test_epoch_scheduler_stepped_once_per_epoch_is_silent() -> None:
    assert codes(PER_CALL.format(in_forward="", in_epoch=STEP)) == []


def test_a_project_call_method_still_wins_over_forward() -> None:
    # a class of its own `__call__` runs that, as before: here it only evaluates
    source = PER_CALL.format(in_forward=STEP, in_epoch="").replace(
        "    def end_epoch(self):",
        "    def __call__(self, inputs, targets):\n"
        "        with torch.no_grad():\n"
        "            return self.net(inputs)\n\n"
        "    def end_epoch(self):")
    assert codes(source) == []


def test_a_model_called_in_the_loop_adds_nothing() -> None:
    # the ordinary case: the model's forward computes outputs; following it changes nothing
    source = """
    import torch
    from torch import nn


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 1))

        def forward(self, x):
            return self.body(x).float()


    def main(loader, epochs):
        net = Net()
        optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
        scheduler = torch.optim.lr_scheduler.OneCycleLR(
            optimizer, max_lr=0.1, total_steps=epochs * len(loader))
        for _ in range(epochs):
            for x, y in loader:
                optimizer.zero_grad()
                nn.functional.mse_loss(net(x), y).backward()
                optimizer.step()
                scheduler.step()
    """
    assert codes(source) == []


# a scheduler built anew on every pass of the loop that steps it --------------------------
# Following `trainer(...)` into forward() placed a forward that builds its own optimizer and
# scheduler on each call in the batch loop. The same shape written inline or in a function
# was already read as one scheduler stepped every batch; each pass builds and steps a new one.

REBUILT = """
import torch
{define}

def run(cfg, loader, net):
    {before}for epoch in range(cfg.epochs):
        for x in loader:
{body}
"""

BUILD_AND_STEP = """            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1)
            sched.step()"""

HELPER = '''

def build_and_step(net):
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1)
    sched.step()
'''


def test_scheduler_built_and_stepped_in_the_loop_body_is_silent() -> None:
    assert codes(REBUILT.format(define="", before="", body=BUILD_AND_STEP)) == []


def test_scheduler_built_and_stepped_in_a_function_called_per_batch_is_silent() -> None:
    source = REBUILT.format(define=HELPER, before="", body="            build_and_step(net)")
    assert codes(source) == []


def test_scheduler_built_before_the_loop_and_stepped_per_batch_is_still_reported() -> None:
    before = ("opt = torch.optim.SGD(net.parameters(), lr=0.1)\n"
              "    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1)\n    ")
    assert codes(REBUILT.format(define="", before=before, body="            sched.step()")) \
        == ["LRD002"]


def test_scheduler_built_in_an_outer_loop_and_stepped_per_batch_is_still_reported() -> None:
    # a new scheduler per fold, each stepped every batch of the folds' epochs
    source = """
    import torch


    def run(cfg, loader, net):
        for fold in range(cfg.folds):
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            sched = torch.optim.lr_scheduler.StepLR(opt, step_size=30)
            for epoch in range(cfg.epochs):
                for x in loader:
                    opt.step()
                    sched.step()
    """
    assert codes(source) == ["LRD002"]


def test_scheduler_built_lazily_on_the_first_pass_is_still_reported() -> None:
    source = """
    import torch


    def run(cfg, loader, net):
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        sched = None
        for epoch in range(cfg.epochs):
            for x in loader:
                opt.step()
                if sched is None:
                    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=30)
                sched.step()
    """
    assert codes(source) == ["LRD002"]
