"""Shapes probed after the fresh-2026-12zr91 batch (rcnew91, bench/realcode/README.md).

Programs written for these tests; no third-party code.

The batch's dev cases (horizons set from configuration: Hydra and YAML settings, dataclass and
argparse defaults, registries, warm-up wrappers) were all found at first sight. Probing the
same family with further spellings of the factories seen in that code found one shape
lrdoctor missed:

- a project factory that forwards its ``**kwargs`` to torch's constructor
  (``def make_scheduler(name, optimizer, **kwargs): return CosineAnnealingLR(optimizer,
  **kwargs)``), called as ``make_scheduler("cosine", opt, T_max=epochs)``. lrdoctor read a
  scheduler's horizon only from the keywords written at the constructor call; there it saw
  ``**kwargs`` and no ``T_max``, so the unit was unknown and LRD002 / LRD003 / LRD010 said
  nothing. Python: a call whose arguments are all named passes exactly those keywords, so
  the constructor receives ``T_max=epochs`` as if written there.
"""

from __future__ import annotations

from .helpers import codes, messages

# -- a factory forwarding **kwargs to torch's constructor --------------------------------------

KWARGS_FACTORY_PER_BATCH = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR


def make_scheduler(optimizer, **kwargs):
    return CosineAnnealingLR(optimizer, **kwargs)


def train(model, loader, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = make_scheduler(opt, T_max=epochs)
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            sched.step()
"""

KWARGS_FACTORY_PER_EPOCH = KWARGS_FACTORY_PER_BATCH.replace(
    "            sched.step()\n", "        sched.step()\n"
)


def test_kwargs_factory_epoch_horizon_stepped_per_batch() -> None:
    assert "LRD002" in codes(KWARGS_FACTORY_PER_BATCH)
    found = messages(KWARGS_FACTORY_PER_BATCH)
    assert any("T_max=epochs" in m for m in found), found


def test_kwargs_factory_epoch_horizon_stepped_per_epoch_is_silent() -> None:
    assert codes(KWARGS_FACTORY_PER_EPOCH) == []


# the same factory reached through a name-keyed branch, a horizon counted in batches and the
# scheduler stepped once per epoch (LRD003)
BRANCHED_FACTORY_BATCHES_PER_EPOCH = """
import torch
from torch.optim import lr_scheduler


def scheduler_for(kind, optimizer, **options):
    if kind == "cosine":
        return lr_scheduler.CosineAnnealingLR(optimizer, **options)
    if kind == "step":
        return lr_scheduler.StepLR(optimizer, **options)
    raise ValueError(kind)


def run(net, batches, n_epochs):
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    sched = scheduler_for("cosine", opt, T_max=len(batches), eta_min=1e-6)
    for epoch in range(n_epochs):
        for x, y in batches:
            opt.zero_grad()
            torch.nn.functional.mse_loss(net(x), y).backward()
            opt.step()
        sched.step()
"""

BRANCHED_FACTORY_BATCHES_PER_BATCH = BRANCHED_FACTORY_BATCHES_PER_EPOCH.replace(
    "        sched.step()\n", "            sched.step()\n"
)


def test_kwargs_factory_batch_horizon_stepped_per_epoch() -> None:
    assert "LRD003" in codes(BRANCHED_FACTORY_BATCHES_PER_EPOCH)


def test_kwargs_factory_batch_horizon_stepped_per_batch_is_silent() -> None:
    assert codes(BRANCHED_FACTORY_BATCHES_PER_BATCH) == []


# a factory forwarding to another factory's **kwargs
TWO_HOP_FACTORY = """
import torch
from torch.optim import lr_scheduler


def _cosine(optimizer, **kw):
    return lr_scheduler.CosineAnnealingLR(optimizer, **kw)


def get_scheduler(optimizer, settings, **extra):
    return _cosine(optimizer, **extra)


def main(settings, net, batches):
    opt = torch.optim.SGD(net.parameters(), lr=settings.lr)
    sched = get_scheduler(opt, settings, T_max=settings.epochs)
    for epoch in range(settings.epochs):
        for x, y in batches:
            opt.zero_grad()
            torch.nn.functional.mse_loss(net(x), y).backward()
            opt.step()
            sched.step()
"""


def test_kwargs_forwarded_twice_reaches_the_constructor() -> None:
    assert "LRD002" in codes(TWO_HOP_FACTORY)
    assert any("T_max=settings.epochs" in m for m in messages(TWO_HOP_FACTORY))


# a method of the trainer class that forwards its **kwargs
METHOD_FACTORY = """
import torch
from torch.optim import lr_scheduler


class Fitter:
    def __init__(self, net, batches, epochs):
        self.net, self.batches, self.epochs = net, batches, epochs
        self.opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
        self.sched = self.make_sched(step_size=self.epochs // 3, gamma=0.1)

    def make_sched(self, **kwargs):
        return lr_scheduler.StepLR(self.opt, **kwargs)

    def fit(self):
        for epoch in range(self.epochs):
            for x, y in self.batches:
                self.opt.zero_grad()
                torch.nn.functional.mse_loss(self.net(x), y).backward()
                self.opt.step()
                self.sched.step()
"""


def test_kwargs_method_factory_epoch_horizon_stepped_per_batch() -> None:
    assert "LRD002" in codes(METHOD_FACTORY)


# a registry dict of classes looked up by a literal name, with the keywords forwarded
REGISTRY_FACTORY = """
import torch
from torch.optim import lr_scheduler

REGISTRY = {"step": lr_scheduler.StepLR, "cosine": lr_scheduler.CosineAnnealingLR}


def new_scheduler(name, optimizer, **kwargs):
    return REGISTRY[name](optimizer, **kwargs)


def main(net, batches, epochs=60):
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = new_scheduler("cosine", opt, T_max=epochs)
    for epoch in range(epochs):
        for x, y in batches:
            opt.zero_grad()
            torch.nn.functional.mse_loss(net(x), y).backward()
            opt.step()
            sched.step()
"""


def test_kwargs_registry_factory_epoch_horizon_stepped_per_batch() -> None:
    assert "LRD002" in codes(REGISTRY_FACTORY)


# LRD010 through the factory: a cosine of 150 epochs in a 300-epoch loop, and a OneCycleLR
# sized for `epochs` in a loop of `epochs + 1` passes
SHORT_COSINE_FACTORY = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR


def make_scheduler(optimizer, **kwargs):
    return CosineAnnealingLR(optimizer, **kwargs)


def train(net, batches):
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = make_scheduler(opt, T_max=150)
    for epoch in range(300):
        for x, y in batches:
            opt.zero_grad()
            torch.nn.functional.mse_loss(net(x), y).backward()
            opt.step()
        sched.step()
"""


def test_kwargs_factory_cosine_shorter_than_the_loop() -> None:
    assert "LRD010" in codes(SHORT_COSINE_FACTORY)


def test_kwargs_factory_cosine_as_long_as_the_loop_is_silent() -> None:
    assert codes(SHORT_COSINE_FACTORY.replace("T_max=150", "T_max=300")) == []


ONECYCLE_FACTORY = """
import torch
from torch.optim.lr_scheduler import OneCycleLR


def make_scheduler(optimizer, **kwargs):
    return OneCycleLR(optimizer, **kwargs)


def train(args, net, loader):
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr)
    sched = make_scheduler(opt, max_lr=args.lr, epochs=args.epochs, steps_per_epoch=len(loader))
    for epoch in range(args.epochs + 1):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(net(x), y).backward()
            opt.step()
            sched.step()
"""


def test_kwargs_factory_onecycle_one_pass_short() -> None:
    assert "LRD010" in codes(ONECYCLE_FACTORY)


def test_kwargs_factory_onecycle_sized_for_the_loop_is_silent() -> None:
    assert codes(ONECYCLE_FACTORY.replace("range(args.epochs + 1)", "range(args.epochs)")) == []


# twins: what the **kwargs hold is not known whole, so nothing is judged
KWARGS_FROM_A_FILE = """
import yaml
import torch
from torch.optim import lr_scheduler


def make(optimizer, **kwargs):
    return lr_scheduler.CosineAnnealingLR(optimizer, **kwargs)


def main(net, batches):
    cfg = yaml.safe_load(open("cfg.yaml"))
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = make(opt, **cfg["scheduler"])
    for epoch in range(cfg["epochs"]):
        for x, y in batches:
            opt.zero_grad()
            torch.nn.functional.mse_loss(net(x), y).backward()
            opt.step()
            sched.step()
"""

ENTRY_POINT_FACTORY = """
import torch
from torch.optim import lr_scheduler


def make_scheduler(optimizer, **kwargs):
    return lr_scheduler.StepLR(optimizer, **kwargs)
"""


def test_kwargs_read_from_a_file_stay_unknown() -> None:
    assert codes(KWARGS_FROM_A_FILE) == []


def test_factory_alone_is_silent() -> None:
    assert codes(ENTRY_POINT_FACTORY) == []
