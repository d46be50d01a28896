"""The model of the program follows what the code does, not how it is laid out (issue 7's
structural metamorphic tests: moving the loop into a function, a class or a second module,
or passing the objects through a dict and ``**kwargs``, must not change the findings).

Each test writes one program in the usual layout (the control, which must be reported) and
in the rewritten one; and a correct variant that must stay silent."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

# -- objects passed through dict(...) and **kwargs ------------------------------------------

_SPLAT_CALL = """
import torch

def one_pass(net, train_loader, opt, sched):
    for x in train_loader:
        loss = net(x).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        {per_batch}
    {per_epoch}

def main(net, train_loader):
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=30)
    for epoch in range(90):
        {call}
"""

_CALLS = {
    "keywords": "one_pass(net=net, train_loader=train_loader, opt=opt, sched=sched)",  # the control
    "dict call": "parts = dict(net=net, train_loader=train_loader, opt=opt, sched=sched)\n"
                 "        one_pass(**parts)",
    "dict call, positional first": "parts = dict(opt=opt, sched=sched)\n"
                                   "        one_pass(net, train_loader, **parts)",
    "dict call, copied": "parts = dict({'net': net, 'train_loader': train_loader}, opt=opt, sched=sched)\n"
                         "        one_pass(**parts)",
    "literal": "parts = {'net': net, 'train_loader': train_loader, 'opt': opt, 'sched': sched}\n"
               "        one_pass(**parts)",
}


@pytest.mark.parametrize("call", list(_CALLS))
def test_objects_passed_through_a_dict_reach_the_callee(call: str) -> None:
    src = _SPLAT_CALL.format(call=_CALLS[call], per_batch="sched.step()", per_epoch="")
    assert "LRD002" in codes(src)


@pytest.mark.parametrize("call", list(_CALLS))
def test_objects_passed_through_a_dict_stepped_per_epoch_are_silent(call: str) -> None:
    src = _SPLAT_CALL.format(call=_CALLS[call], per_batch="", per_epoch="sched.step()")
    assert "LRD002" not in codes(src)


_SPLAT_INIT = """
import torch

class Runner:
    def __init__(self, *args, **kwargs):
        self.net = kwargs["net"]
        self.opt = kwargs["opt"]
        self.sched = kwargs["sched"]

    def fit(self, train_loader, epochs):
        for epoch in range(90):
            for x in train_loader:
                loss = self.net(x).mean()
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
                {per_batch}
            {per_epoch}

def main(net, train_loader):
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=90)
    {build}
    runner.fit(train_loader, 90)
"""


@pytest.mark.parametrize("build", [
    "runner = Runner(net=net, opt=opt, sched=sched)",  # the control
    "parts = dict(net=net, opt=opt, sched=sched)\n    runner = Runner(**parts)",
])
def test_a_dict_splatted_into_a_constructor_reaches_its_kwargs(build: str) -> None:
    src = _SPLAT_INIT.format(build=build, per_batch="self.sched.step()", per_epoch="")
    assert "LRD002" in codes(src)
    silent = _SPLAT_INIT.format(build=build, per_batch="", per_epoch="self.sched.step()")
    assert "LRD002" not in codes(silent)


def test_a_dict_built_from_something_unknown_guesses_no_horizon() -> None:
    # `dict(settings, sched=sched)` of an unknown `settings`: the items it names are known,
    # the rest are not; nothing is invented for them
    src = """
import torch

def one_pass(net, train_loader, opt, sched=None):
    for x in train_loader:
        loss = net(x).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if sched is not None:
            sched.step()

def main(net, train_loader, settings):
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for epoch in range(90):
        parts = dict(settings, net=net, train_loader=train_loader, opt=opt)
        one_pass(**parts)
"""
    assert "LRD002" not in codes(src)


_RESUMED_PROJECT_SCHEDULER = """
import torch

class Warm(torch.optim.lr_scheduler._LRScheduler):
    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = milestones
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [b * 0.999 ** self.last_epoch for b in self.base_lrs]

def main(model, train_loader, resume):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    start_epoch = 0
    if resume:
        state = torch.load(resume)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start_epoch = state["epoch"] + 1
    {build}
    for epoch in range(start_epoch, 16):
        for x in train_loader:
            loss = model(x).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
        torch.save({{"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "epoch": epoch}}, "last.pt")
"""


@pytest.mark.parametrize("build", [
    # the control: the position written out in the call
    "scheduler = Warm(optimizer, [10, 12], last_epoch=len(train_loader) * start_epoch - 1)",
    "parts = dict(optimizer=optimizer, milestones=[10, 12],\n"
    "                 last_epoch=len(train_loader) * start_epoch - 1)\n"
    "    scheduler = Warm(**parts)",
])
def test_a_project_scheduler_rebuilt_at_the_resumed_position_through_a_dict(build: str) -> None:
    # the schedule is rebuilt where the resumed run starts: the checkpoint needs no state
    assert "LRD007" not in codes(_RESUMED_PROJECT_SCHEDULER.format(build=build))


@pytest.mark.parametrize("build", [
    "scheduler = Warm(optimizer, [10, 12])",
    "parts = dict(optimizer=optimizer, milestones=[10, 12])\n    scheduler = Warm(**parts)",
])
def test_a_project_scheduler_built_afresh_through_a_dict_is_still_reported(build: str) -> None:
    assert "LRD007" in codes(_RESUMED_PROJECT_SCHEDULER.format(build=build))


# -- settings held in a dict ------------------------------------------------------------------

_CONFIG_IN_CHECKPOINT = """
import torch

CONFIG = {{"optimizer": "sgd", "scheduler": "cosine", "epochs": 16, "lr": 0.1}}

def main(model, train_loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=CONFIG["lr"])
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=CONFIG["epochs"])
    for epoch in range(CONFIG["epochs"]):
        for x in train_loader:
            loss = model(x).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        scheduler.step()
        torch.save({{"model": model.state_dict(), "epoch": epoch, "config": CONFIG{more}}},
                   "last.pt")
"""


def test_a_setting_named_like_an_object_is_not_its_state() -> None:
    # `"optimizer": "sgd"` of a config dict saved with the run is a name, not the state: the
    # checkpoint holds no optimizer state (so it is no resumable checkpoint to judge) ...
    assert "LRD007" not in codes(_CONFIG_IN_CHECKPOINT.format(more=""))
    # ... and `"scheduler": "cosine"` is not the scheduler's state either (the control)
    src = _CONFIG_IN_CHECKPOINT.format(more=', "optimizer": optimizer.state_dict()')
    assert "LRD007" in codes(src)


# -- a constructor's keywords passed through a dict -------------------------------------------

_SPLAT_SCHEDULER = """
import torch

def main(model, train_loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    {build}
    for epoch in range(90):
        for x in train_loader:
            loss = model(x).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            {per_batch}
        {per_epoch}
"""

_BUILDS = [
    "scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30, gamma=0.1)",  # control
    "parts = dict(step_size=30, gamma=0.1)\n"
    "    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, **parts)",
    "parts = {'optimizer': optimizer, 'step_size': 30}\n"
    "    scheduler = torch.optim.lr_scheduler.StepLR(**parts)",
]


@pytest.mark.parametrize("build", _BUILDS)
def test_a_horizon_passed_through_a_dict_is_read(build: str) -> None:
    src = _SPLAT_SCHEDULER.format(build=build, per_batch="scheduler.step()", per_epoch="")
    assert "LRD002" in codes(src)
    silent = _SPLAT_SCHEDULER.format(build=build, per_batch="", per_epoch="scheduler.step()")
    assert "LRD002" not in codes(silent)


@pytest.mark.parametrize("change", [
    "parts['step_size'] = 30 * len(train_loader)",
    "parts.update(step_size=30 * len(train_loader))",
])
def test_a_dict_changed_after_it_was_built_is_not_read_as_written(change: str) -> None:
    # the horizon is no longer the 30 written in dict(...): nothing is read from it
    build = f"parts = dict(step_size=30, gamma=0.1)\n    {change}\n" \
            "    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, **parts)"
    src = _SPLAT_SCHEDULER.format(build=build, per_batch="scheduler.step()", per_epoch="")
    assert "LRD002" not in codes(src)


# -- the loop as a method on self.<objects> ---------------------------------------------------

_FIT_METHOD = """
import torch

class Runner:
    def __init__(self, model, optimizer, scheduler, train_loader, use_schedule):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.train_loader = train_loader
        self.use_schedule = use_schedule
        self.best = 0.0
        self.passes = 0

    def fit(self, epochs):
        for epoch in range(epochs):
            if {guard}:
                self.scheduler.step()
            for x in self.train_loader:
                loss = self.model(x).mean()
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            acc = float(loss)
            if acc > self.best:
                self.best = acc
            self.passes += 1

def main(model, train_loader, use_schedule):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[30, 60])
    Runner(model, optimizer, scheduler, train_loader, use_schedule).fit(90)
"""


@pytest.mark.parametrize("guard", [
    "use_schedule",  # the control: a plain name (here a global of unknown value)
    "self.use_schedule",
    "not isinstance(self.scheduler, torch.optim.lr_scheduler.CyclicLR)",
])
def test_a_setting_read_through_self_is_the_same_on_every_pass(guard: str) -> None:
    # the loop stores `self.best` and `self.passes`, which says nothing of `self.use_schedule`
    assert "LRD001" in codes(_FIT_METHOD.format(guard=guard))


def test_an_attribute_the_loop_rebinds_may_skip_the_first_pass() -> None:
    # `self.passes` is 0 on the first pass and grows: the step may skip it; nothing is said
    assert "LRD001" not in codes(_FIT_METHOD.format(guard="self.passes > 0"))


_PLATEAU_METHOD = """
import torch

class Runner:
    def __init__(self, model, optimizer, train_loader, val_loader):
        self.model = model
        self.optimizer = optimizer
        self.plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min")
        self.train_loader = train_loader
        self.val_loader = val_loader

    def fit(self, epochs):
        for epoch in range(epochs):
            self.total_loss = 0.0
            for x in self.train_loader:
                loss = self.model(x).mean()
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                self.total_loss += loss.item()
            with torch.no_grad():
                self.val_loss = sum(self.model(x).mean().item() for x in self.val_loader)
            self.plateau.step({metric})
"""


@pytest.mark.parametrize("metric", ["self.total_loss", "self.total_loss / len(self.train_loader)"])
def test_a_training_loss_held_on_self_feeds_the_plateau(metric: str) -> None:
    assert "LRD004" in codes(_PLATEAU_METHOD.format(metric=metric))


def test_a_validation_loss_held_on_self_is_silent() -> None:
    assert "LRD004" not in codes(_PLATEAU_METHOD.format(metric="self.val_loss"))


# -- settings in a config dict, read as cfg["x"] ----------------------------------------------

_POSITION_FROM_SETTING = """
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--start_epoch", type=int, default=0)
args = parser.parse_args()
cfg = {{"start_epoch": 0, "epochs": 90}}

def main(model, train_loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
    resumed = False
    for epoch in range({start}, 90):
        if {first} > 0 and not resumed:
            scheduler.step({first} + 1)
            resumed = True
        else:
            scheduler.step(epoch)
        for x in train_loader:
            loss = model(x).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
"""


@pytest.mark.parametrize("setting", ['args.start_epoch', 'cfg["start_epoch"]',
                                     'cfg.get("start_epoch", 0)'])
def test_a_position_read_from_a_config_dict_is_known(setting: str) -> None:
    # the first pass tells the schedule position 1: position 0 is never trained with
    src = _POSITION_FROM_SETTING.format(start=f"{setting} + 1", first=setting)
    assert "LRD001" in codes(src)
    # starting from the setting itself (0), the first pass keeps position 0
    assert "LRD001" not in codes(_POSITION_FROM_SETTING.format(start=setting, first=setting))


_UNIT_PICKED_BY_SETTING = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR, LinearLR, SequentialLR

cfg = {{"epochs": 90, "warmup_epochs": 5, "per_batch": False}}

def make(optimizer, total_steps, warmup_steps):
    warm = LinearLR(optimizer, start_factor=0.1, total_iters=warmup_steps)
    cos = CosineAnnealingLR(optimizer, T_max=total_steps - warmup_steps)
    return SequentialLR(optimizer, [warm, cos], milestones=[warmup_steps])

def main(model, train_loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    n = len(train_loader)
    total_steps = {total}
    warmup_steps = {warmup}
    scheduler = make(optimizer, total_steps, warmup_steps)
    for epoch in range(cfg["epochs"]):
        for x in train_loader:
            loss = model(x).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if cfg["per_batch"]:
                scheduler.step()
        if not cfg["per_batch"]:
            scheduler.step()
"""


def test_a_horizon_whose_unit_a_setting_picks_is_not_judged_by_its_name() -> None:
    # `warmup_steps` holds epochs unless the run steps per batch: the name says nothing
    src = _UNIT_PICKED_BY_SETTING.format(
        total='cfg["epochs"] * n if cfg["per_batch"] else cfg["epochs"]',
        warmup='cfg["warmup_epochs"] * n if cfg["per_batch"] else cfg["warmup_epochs"]')
    assert "LRD003" not in codes(src)
    # the control: sized in batches whatever the setting, and stepped once per epoch
    src = _UNIT_PICKED_BY_SETTING.format(total='cfg["epochs"] * n',
                                         warmup='cfg["warmup_epochs"] * n')
    assert "LRD003" in codes(src)


_MODE_ON_SELF = """
import torch

class Runner:
    def __init__(self, model, optimizer, scheduler, train_loader, step_mode):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.train_loader = train_loader
        self.step_mode = step_mode

    def fit(self, epochs, val_loss):
        for epoch in range(epochs):
            for x in self.train_loader:
                loss = self.model(x).mean()
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                if {test}:
                    self.scheduler.step()
            if {epoch_test}:
                self.scheduler.step(val_loss)

def main(model, train_loader, val_loss):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)
    step_mode = "{mode}"
    runner = Runner(model, optimizer, scheduler, train_loader, step_mode)
    {more}
    runner.fit(90, val_loss)
"""


@pytest.mark.parametrize("test, epoch_test", [
    ('step_mode == "batch"', 'step_mode == "epoch"'),  # the control: the local name
    ('self.step_mode == "batch"', 'self.step_mode == "epoch"'),
])
def test_a_literal_held_on_self_decides_its_branch(test: str, epoch_test: str) -> None:
    # the plateau is stepped without a metric only where step_mode is "batch"
    src = _MODE_ON_SELF.format(test=test, epoch_test=epoch_test, mode="epoch", more="")
    if test.startswith("step_mode"):
        src = src.replace("    def fit(self, epochs, val_loss):\n",
                          "    def fit(self, epochs, val_loss):\n"
                          "        step_mode = self.step_mode\n")
    assert "LRD004" not in codes(src)
    assert "LRD004" in codes(src.replace('step_mode = "epoch"', 'step_mode = "batch"'))


@pytest.mark.parametrize("more, found", [
    ("", False),  # the control: one literal, "epoch", and the batch branch never runs
    ('runner.step_mode = "batch"', True),
    ('setattr(runner, "step_mode", "batch")', True),
])
def test_an_attribute_written_again_is_not_taken_as_one_literal(more: str, found: bool) -> None:
    # here nothing steps the plateau per epoch: the batch branch is the only step
    src = _MODE_ON_SELF.format(test='self.step_mode == "batch"', epoch_test="False",
                               mode="epoch", more=more)
    assert ("LRD004" in codes(src)) is found


_AMP_SWITCH_ON_SELF = """
import torch

class Runner:
    def __init__(self, model, optimizer, train_loader, use_amp=False, **rest):
        self.model = model
        self.optimizer = optimizer
        self.train_loader = train_loader
        self.use_amp = use_amp
        self.scaler = torch.amp.GradScaler("cuda")

    def fit(self):
        for x in self.train_loader:
            loss = self.model(x).mean()
            self.optimizer.zero_grad()
            if self.use_amp:
                self.scaler.scale(loss).backward()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
                self.scaler.step(self.optimizer)
                self.scaler.update()
            else:
                loss.backward()
                self.optimizer.step()

def main(model, train_loader, conf):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    {build}
    runner.fit()
"""


@pytest.mark.parametrize("build", [
    "runner = Runner(model, optimizer, train_loader, **conf)",  # the control
    "parts = dict(model=model, optimizer=optimizer, train_loader=train_loader, **conf)\n"
    "    runner = Runner(**parts)",
])
def test_a_dict_with_unknown_items_may_carry_any_keyword(build: str) -> None:
    # `conf` may hold use_amp=True: the default False is not the only value it can have
    assert "LRD108" in codes(_AMP_SWITCH_ON_SELF.format(build=build))
