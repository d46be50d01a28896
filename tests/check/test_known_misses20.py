"""Ignite's ``common.setup_common_training_handlers`` (rcnew43, fresh-2026-12zw).

The helper attaches, among other things, what a hand-written Ignite program would attach with
``add_event_handler``: a ``Checkpoint`` that writes ``to_save`` every ``save_every_iters``
iterations, and the ``lr_scheduler`` it is given, stepped once per iteration (a torch scheduler
after each iteration, an Ignite ``LRScheduler`` wrapping one at the start of the next: the same
step per iteration, after the update). A checkpoint dict handed to it without the GradScaler
the process function scales with loses the scale on resume (LRD007, when AMP is on); a
scheduler handed to it is stepped per batch, so one sized in epochs decays per batch (LRD002).

Programs written for these tests; no third-party code."""

from __future__ import annotations

from .helpers import codes

PROGRAM = """
import torch
from torch.amp import GradScaler, autocast
from ignite.engine import Engine
from ignite.contrib.engines import common
from ignite.handlers import Checkpoint, DiskSaver


def build(settings):
    net = torch.nn.Linear(8, 3)
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    sched = {scheduler}
    return net, opt, sched


def make_engine(net, opt, sched, settings, sampler):
    scaler = GradScaler(enabled=settings["mixed"])

    def one_batch(engine, batch):
        inputs, labels = batch
        with autocast("cuda", enabled=settings["mixed"]):
            loss = torch.nn.functional.cross_entropy(net(inputs), labels)
        opt.zero_grad()
        {backward}
        return loss.item()

    engine = Engine(one_batch)
    state = {{"engine": engine, "net": net, "opt": opt, "sched": sched{extra}}}
    {attach}
    if settings["from"]:
        Checkpoint.load_objects(to_load=state, checkpoint=torch.load(settings["from"]))
    return engine


def main(settings, loader):
    net, opt, sched = build(settings)
    engine = make_engine(net, opt, sched, settings, loader.sampler)
    engine.run(loader, max_epochs=settings["epochs"])
"""

SCALED = "scaler.scale(loss).backward(); scaler.step(opt); scaler.update()"
PLAIN = "loss.backward(); opt.step()"
PER_BATCH = "torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.05, total_steps=20000)"
PER_EPOCH = "torch.optim.lr_scheduler.StepLR(opt, step_size=30, gamma=0.1)"
KEYWORDS = ("common.setup_common_training_handlers(trainer=engine, train_sampler=sampler, "
            "to_save=state, save_every_iters=1000, save_handler=DiskSaver('out', "
            "require_empty=False), lr_scheduler=sched)")
POSITIONAL = "common.setup_common_training_handlers(engine, sampler, state, 1000, 'out', sched)"
NO_SCHEDULER = ("common.setup_common_training_handlers(trainer=engine, to_save=state, "
                "save_every_iters=1000, output_path='out')")


def program(*, scheduler: str = PER_BATCH, backward: str = SCALED, extra: str = "",
            attach: str = KEYWORDS) -> str:
    return PROGRAM.format(scheduler=scheduler, backward=backward, extra=extra, attach=attach)


def test_checkpoint_dict_without_the_scaler_is_reported():
    assert "LRD007" in codes(program())


def test_checkpoint_dict_given_by_position_without_the_scaler_is_reported():
    assert "LRD007" in codes(program(attach=POSITIONAL))


def test_checkpoint_without_a_scheduler_argument_still_judged():
    assert "LRD007" in codes(program(attach=NO_SCHEDULER))


def test_checkpoint_dict_with_the_scaler_is_silent():
    found = codes(program(extra=', "scaler": scaler'))
    assert "LRD007" not in found


def test_no_grad_scaler_nothing_to_lose():
    assert "LRD007" not in codes(program(backward=PLAIN))


def test_epoch_sized_scheduler_handed_to_the_helper_steps_per_batch():
    assert "LRD002" in codes(program(scheduler=PER_EPOCH, backward=PLAIN))


def test_batch_sized_scheduler_handed_to_the_helper_is_correct():
    found = codes(program(backward=PLAIN))
    assert not {"LRD001", "LRD002", "LRD003", "LRD007"} & set(found)


def test_ignite_param_scheduler_is_not_tracked():
    # Ignite's own `PiecewiseLinear` sets the LR from the iteration count: no torch scheduler
    found = codes(program(
        scheduler="PiecewiseLinear(opt, 'lr', [(0, 0.0), (500, 0.05), (20000, 0.0)])",
        backward=PLAIN).replace(
        "from ignite.handlers import Checkpoint, DiskSaver",
        "from ignite.handlers import Checkpoint, DiskSaver, PiecewiseLinear"))
    assert not {"LRD001", "LRD002", "LRD003", "LRD007"} & set(found)


SUBCLASS = """
import torch
from torch.amp import GradScaler, autocast
from ignite.engine import Engine
from ignite.contrib.engines.common import setup_common_training_handlers as attach_defaults


class Runner(Engine):
    def __init__(self, net, opt, mixed):
        super().__init__(self.update)
        self.net, self.opt = net, opt
        self.scaler = GradScaler(enabled=mixed)

    def update(self, engine, batch):
        with autocast("cuda"):
            loss = self.net(batch).sum()
        self.opt.zero_grad()
        self.scaler.scale(loss).backward()
        self.scaler.step(self.opt)
        self.scaler.update()


def main(loader, mixed):
    net = torch.nn.Linear(2, 2)
    opt = torch.optim.Adam(net.parameters())
    runner = Runner(net, opt, mixed)
    attach_defaults(runner, to_save={{"net": net, "opt": opt{extra}}}, output_path="o")
    runner.run(loader, max_epochs=3)
"""


def test_engine_subclass_and_imported_helper_without_the_scaler_is_reported():
    assert "LRD007" in codes(SUBCLASS.format(extra=""))


def test_engine_subclass_and_imported_helper_with_the_scaler_is_silent():
    assert "LRD007" not in codes(SUBCLASS.format(extra=', "scaler": runner.scaler'))
