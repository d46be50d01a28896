"""The model of the program follows what the code does, not what its values are called
(issue 7's metamorphic tests: renaming a scheduler, an optimizer or a loader to a neutral
name, or wrapping a loader in ``enumerate`` / ``iter``, must not change the findings).

Each test writes one program twice or more: with the usual names (the control, which must be
reported) and with neutral ones; and a correct or unrelated variant that must stay silent."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

# -- a loop is a batch loop when every pass trains on one batch ----------------------------

_EPOCH_SCHED_IN_LOOP = """
import torch

def fit(model, {data}, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=epochs // 3)
    for epoch in range(epochs):
        for {target} in {over}:
            loss = model(x).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
"""


@pytest.mark.parametrize("data, target, over", [
    ("train_loader", "x", "train_loader"),  # the control: a name that says loader
    ("batches", "x", "batches"),
    ("it", "x", "it"),
    ("data", "i, x", "enumerate(data)"),
    ("source", "x", "iter(source)"),
])
def test_a_loop_that_trains_each_pass_is_a_batch_loop(data: str, target: str, over: str) -> None:
    src = _EPOCH_SCHED_IN_LOOP.format(data=data, target=target, over=over)
    assert "LRD002" in codes(src)


def test_a_loop_that_only_steps_the_scheduler_is_not_a_batch_loop() -> None:
    # `for x in items:` with no backward and no optimizer step in it says nothing about batches
    src = """
import torch

def fit(model, items, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=epochs // 3)
    for epoch in range(epochs):
        opt.step()
        for x in items:
            print(x)
        sched.step()
"""
    assert "LRD002" not in codes(src)


def test_a_full_batch_epoch_loop_stays_an_epoch_loop() -> None:
    # one update per epoch over the whole data set (a graph, a small table): the range loop
    # over epochs trains every pass, and an epoch scheduler stepped in it is right
    src = """
import torch

def fit(model, graph, epochs):
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=epochs // 3)
    for _ in range(epochs):
        loss = model(graph).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
"""
    assert "LRD002" not in codes(src)


# -- a project instance rebound on one branch still holds the instance on the other ---------

_WRAPPED_RUNNER = """
import torch
from torch.nn.parallel import DistributedDataParallel

class Runner:
    def __init__(self, net):
        self.net = net
        self.amp = torch.amp.GradScaler("cuda")

    def attach(self, o, s):
        self.o = o
        self.s = s

    def one_epoch(self, batches):
        for x in batches:
            with torch.autocast("cuda", dtype=torch.float16):
                loss = self.net(x).mean()
            self.o.zero_grad()
            self.amp.scale(loss).backward()
            self.amp.step(self.o)
            self.amp.update()
            {sched_step}

def main(args, net, batches):
    r = Runner(net)
{wrap}
    o = torch.optim.AdamW(net.parameters(), lr=1e-3)
    s = torch.optim.lr_scheduler.OneCycleLR(o, max_lr=1e-3, total_steps=args.steps)
    r.attach(o, s)
    for epoch in range(args.epochs):
        r.one_epoch(batches)
"""


@pytest.mark.parametrize("wrap", [
    "",  # the control: the name holds the instance throughout
    "    if args.distributed:\n        r = DistributedDataParallel(r)",
    "    if args.distributed:\n        r = DistributedDataParallel(r)\n    else:\n        r.net.cuda()",
])
def test_an_instance_wrapped_on_one_branch_is_followed(wrap: str) -> None:
    src = _WRAPPED_RUNNER.format(wrap=wrap, sched_step="self.s.step()")
    assert "LRD005" in codes(src)


def test_an_instance_wrapped_on_one_branch_stays_silent_when_correct() -> None:
    wrap = "    if args.distributed:\n        r = DistributedDataParallel(r)"
    # the scheduler steps only when the scale did not drop (the update was not skipped)
    step = ("before = self.amp.get_scale()\n            self.amp.update()\n"
            "            if self.amp.get_scale() >= before:\n                self.s.step()")
    src = _WRAPPED_RUNNER.format(wrap=wrap, sched_step="pass").replace(
        "self.amp.update()\n            pass", step)
    assert codes(src) == []


# -- an optimizer or scheduler built from a class chosen at run time ------------------------

_STEP_AT_EPOCH_START = """
import torch
from torch import optim
from helpers import pick_optimizer

def main(model, loader, args):
{build}
{sched}
    for epoch in range(args.epochs):
{first}
        for x in loader:
            o1.zero_grad()
            model(x).mean().backward()
            o1.step()
{last}
"""
_STEPLR = "    s1 = optim.lr_scheduler.StepLR(o1, step_size=args.epochs // 3)"


@pytest.mark.parametrize("build, sched", [
    ("    o1 = optim.SGD(model.parameters(), lr=args.lr)", _STEPLR),  # the control
    ("    o1 = getattr(optim, args.optim)(model.parameters(), lr=args.lr)", _STEPLR),
    ("    c = getattr(torch.optim, args.optim)\n    o1 = c(model.parameters(), lr=args.lr)",
     _STEPLR),
    ("    c = pick_optimizer(args)\n    o1 = c(model.parameters(), **args.opt_kwargs)", _STEPLR),
    ("    o1 = optim.SGD(model.parameters(), lr=args.lr)",
     "    s1 = getattr(optim.lr_scheduler, args.sched)(o1, **args.sched_kwargs)"),
])
def test_a_class_chosen_at_run_time_builds_what_it_is_given(build: str, sched: str) -> None:
    src = _STEP_AT_EPOCH_START.format(build=build, sched=sched, first="        s1.step()",
                                      last="")
    assert "LRD001" in codes(src)
    right = _STEP_AT_EPOCH_START.format(build=build, sched=sched, first="",
                                        last="        s1.step()")
    assert codes(right) == []


def test_a_library_call_given_the_parameters_builds_no_optimizer() -> None:
    # `list(...)` / `clip(...)` are handed the parameters but build nothing that steps
    src = """
import torch
from torch.nn.utils import clip_grad_norm_

def main(model, loader, args):
    params = list(model.parameters())
    o1 = torch.optim.SGD(params, lr=args.lr)
    s1 = torch.optim.lr_scheduler.StepLR(o1, step_size=args.epochs // 3)
    for epoch in range(args.epochs):
        for x in loader:
            o1.zero_grad()
            model(x).mean().backward()
            norm = clip_grad_norm_(model.parameters(), 1.0)
            o1.step()
        s1.step()
"""
    assert codes(src) == []


# -- classes picked from a registry by a setting --------------------------------------------

_REGISTRY = """
import torch
from registry import SCHEDULES, OPTIMIZERS

def train(model, loader, cfg):
    amp = torch.amp.GradScaler("cuda")
    {o} = OPTIMIZERS[cfg.opt]([{{"params": model.parameters(), "lr": cfg.lr}}], lr=cfg.lr)
    {s} = {build}
    for epoch in range(cfg.epochs):
        for x in loader:
            with torch.autocast("cuda", dtype=torch.float16):
                loss = model(x).mean()
            amp.scale(loss).backward()
            amp.step({o})
            amp.update()
            {o}.zero_grad()
            {s}.step()
"""


@pytest.mark.parametrize("o, s", [("optimizer", "scheduler"), ("o", "s"), ("a1", "b1")])
def test_a_registry_scheduler_given_the_optimizer_and_a_horizon(o: str, s: str) -> None:
    build = (f"SCHEDULES.get(cfg.sched)(optimizer={o}, num_warmup_steps=100, "
             "num_training_steps=cfg.steps)")
    assert "LRD005" in codes(_REGISTRY.format(o=o, s=s, build=build))


def test_a_registry_object_given_the_optimizer_without_a_horizon_is_no_scheduler() -> None:
    # `WRAPPERS[name](o, k=5)` (a lookahead, an averaging wrapper) steps but is no scheduler
    src = _REGISTRY.format(o="o", s="w", build="SCHEDULES[cfg.wrapper](o, k=5)")
    assert "LRD005" not in codes(src)


# -- a parameter's annotation says what it holds ---------------------------------------------

_ANNOTATED = """
from typing import Optional
import torch
from torch.optim import Optimizer
from torch.optim.lr_scheduler import LRScheduler

def train_epoch(model, batches, o{o_ann}, s{s_ann}):
    for x in batches:
        s.step()
        o.zero_grad()
        model(x).mean().backward()
        o.step()
"""


@pytest.mark.parametrize("o_ann, s_ann", [
    (": Optimizer", ": LRScheduler"),
    (": torch.optim.Optimizer", ": Optional[torch.optim.lr_scheduler.LRScheduler]"),
    (": Optimizer", ": 'LRScheduler | None'"),
])
def test_annotated_parameters_are_what_their_annotation_says(o_ann: str, s_ann: str) -> None:
    assert "LRD001" in codes(_ANNOTATED.format(o_ann=o_ann, s_ann=s_ann))


def test_unannotated_neutral_parameters_stay_unknown() -> None:
    # `o` and `s` with nothing to say what they are: an object with a `.step()` is no scheduler
    assert codes(_ANNOTATED.format(o_ann="", s_ann="")) == []
    assert codes(_ANNOTATED.format(o_ann=": Optimizer", s_ann=": object")) == []


# -- an isinstance test against a torch scheduler class says what the value is --------------

_ISINSTANCE = """
import torch
from torch.optim.lr_scheduler import OneCycleLR

class Loop:
    def __init__(self, net, o, s):
        self.net, self.o, self.s = net, o, s
        self.amp = torch.amp.GradScaler("cuda")

    def run(self, batches):
        for x in batches:
            with torch.autocast("cuda", dtype=torch.float16):
                loss = self.net(x).mean()
            self.amp.scale(loss).backward()
            self.amp.step(self.o)
            self.amp.update()
            self.o.zero_grad()
            if {test}:
                self.s.step()
"""


def test_a_value_tested_against_a_scheduler_class_is_a_scheduler_in_that_branch() -> None:
    assert "LRD005" in codes(_ISINSTANCE.format(test="isinstance(self.s, OneCycleLR)"))
    assert "LRD005" in codes(_ISINSTANCE.format(
        test="isinstance(self.s, (OneCycleLR, torch.optim.lr_scheduler.CyclicLR))"))


def test_a_value_tested_against_another_class_stays_unknown() -> None:
    # `isinstance(s, Callback)` / `not isinstance(s, OneCycleLR)` say nothing it is
    src = _ISINSTANCE.replace("from torch.optim.lr_scheduler import OneCycleLR",
                              "from torch.optim.lr_scheduler import OneCycleLR\nfrom cb import Callback")
    assert "LRD005" not in codes(src.format(test="isinstance(self.s, Callback)"))
    assert "LRD005" not in codes(_ISINSTANCE.format(test="not isinstance(self.s, OneCycleLR)"))


_PICKED_BY_NAME = """
import torch
from torch.optim import lr_scheduler


def main(model, loader, args):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    cls = getattr(lr_scheduler, args.sched)
    scheduler = cls(optimizer, {keywords})
    for epoch in range(args.epochs):
        for x in loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
            {batch_step}
        {epoch_step}
"""


def test_a_torch_scheduler_picked_by_name_is_the_one_class_its_keywords_fit() -> None:
    # only CosineAnnealingLR takes T_max: any other class picked here would raise TypeError,
    # so its horizon (in epochs) is judged against where it steps (every batch)
    src = _PICKED_BY_NAME.format(keywords="T_max=args.epochs", batch_step="scheduler.step()",
                                 epoch_step="pass")
    assert codes(src) == ["LRD002"]
    right = _PICKED_BY_NAME.format(keywords="T_max=args.epochs", batch_step="pass",
                                   epoch_step="scheduler.step()")
    assert codes(right) == []


def test_control_keywords_several_torch_schedulers_take_leave_the_class_unknown() -> None:
    # gamma: StepLR, MultiStepLR and ExponentialLR all take it; no horizon to judge
    src = _PICKED_BY_NAME.format(keywords="gamma=0.9", batch_step="scheduler.step()",
                                 epoch_step="pass")
    assert "LRD002" not in codes(src)


EPOCHS_TIMES_A_COUNT = """
import torch
from torch.utils.data import DataLoader, TensorDataset


def resolve(cfg, n):
    total = {total}
    return total // 100, total


class Trainer:
    def __init__(self, cfg, model, batches):
        self.cfg = cfg
        self.model = model
        self.batches = batches
        self.o = torch.optim.AdamW(model.parameters(), lr=1e-3)
        warm, total = resolve(cfg, len(self.batches))
        self.s = torch.optim.lr_scheduler.CosineAnnealingLR(self.o, T_max=total)

    def fit(self):
        for epoch in range(self.cfg.num_epochs):
            for x, y in self.batches:
                self.o.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.o.step()
                self.s.step()


class Cfg:
    num_epochs = 3


loader = DataLoader(TensorDataset(torch.randn(64, 4), torch.randn(64, 1)), batch_size=8)
Trainer(Cfg(), torch.nn.Linear(4, 1), loader).fit()
"""


def test_epochs_times_a_count_of_unknown_unit_is_not_an_epoch_horizon() -> None:
    # `n` is a parameter whose caller gives it len(loader): whatever it is called, the product
    # is not known to count epochs, and a per-batch step of it is no LRD002
    assert "LRD002" not in codes(EPOCHS_TIMES_A_COUNT.format(total="cfg.num_epochs * n"))
    assert "LRD002" not in codes(EPOCHS_TIMES_A_COUNT.format(total="n * cfg.num_epochs"))


def test_epochs_alone_or_times_a_literal_stays_an_epoch_horizon() -> None:
    # the controls: a count of epochs, scaled by a number, stepped per batch
    assert "LRD002" in codes(EPOCHS_TIMES_A_COUNT.format(total="cfg.num_epochs"))
    assert "LRD002" in codes(EPOCHS_TIMES_A_COUNT.format(total="cfg.num_epochs * 2"))


def test_epochs_times_a_written_count_of_updates_is_not_known_to_be_epochs() -> None:
    # `epochs * 100`: a hundred updates an epoch written as a number (a fixed loader length) as
    # likely as a hundred epochs' worth; no error on a per-batch step (it was one: "the whole
    # schedule passes within the first epoch", on a run that is right with 100 batches)
    assert "LRD002" not in codes(EPOCHS_TIMES_A_COUNT.format(total="cfg.num_epochs * 100"))
    assert "LRD002" not in codes(EPOCHS_TIMES_A_COUNT.format(total="500 * cfg.num_epochs"))


# -- a classmethod's first parameter is its class ---------------------------------------------

_CLASSMETHOD_BUILDER = """
import torch


class Schedules:
    @classmethod
    def attach(cls, optimizer, epochs):
        return torch.optim.lr_scheduler.StepLR(optimizer, step_size=epochs // 3)


def fit(net, batches, epochs):
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    s = {call}(opt, epochs)
    for epoch in range(epochs):
        for x in batches:
            opt.zero_grad()
            net(x).mean().backward()
            opt.step()
{inner}
{outer}
"""


@pytest.mark.parametrize("call", ["Schedules.attach", "Schedules().attach"])
def test_a_classmethod_binds_its_arguments_after_cls(call: str) -> None:
    # `Schedules.attach(opt, epochs)`: `cls` is the class, so `optimizer` is the optimizer and
    # `epochs` the epoch count (they were read one place off); stepped per batch, the StepLR
    # sized in epochs is LRD002, whatever it is called
    assert "LRD002" in codes(_CLASSMETHOD_BUILDER.format(call=call, inner="            s.step()",
                                                         outer=""))
    assert "LRD002" not in codes(_CLASSMETHOD_BUILDER.format(call=call, inner="",
                                                             outer="        s.step()"))


_IMPORTLIB_PICKED = """
import importlib
import torch


def build(spec, optimizer):
    name = spec.pop("name")
    where = importlib.import_module("{module}")
    chosen = getattr(where, name)
    return chosen(optimizer, **spec)


def train(spec, model, batches):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    s1 = build(spec, opt)
    for epoch in range(10):
        for x in batches:
            opt.zero_grad()
            model(x).sum().backward()
            opt.step()
        s1.step()
        torch.save({{"model": model.state_dict(), "optimizer": opt.state_dict()}}, "last.pt")
"""


def test_a_class_picked_from_a_module_imported_by_importlib() -> None:
    # `importlib.import_module("torch.optim.lr_scheduler")` is that module: a class taken
    # from it by a setting and given the optimizer is a scheduler, whatever it is called
    assert "LRD007" in codes(_IMPORTLIB_PICKED.format(module="torch.optim.lr_scheduler"))
    # a class of another module is not known to be one
    assert "LRD007" not in codes(_IMPORTLIB_PICKED.format(module="mylib.schedules"))


# -- a dict of objects filled by name (GANs, multi-task: one optimizer and scheduler each) -----

_DICT_BY_NAME = """
import torch


def fit(nets, batches, epochs):
    opts = {{}}
    for key, net in nets.items():
        opts[key] = torch.optim.Adam(net.parameters(), lr=2e-4)
{built}
    for epoch in range(epochs):
        for x in batches:
            for o in opts.values():
                o.zero_grad()
            sum(net(x).mean() for net in nets.values()).backward()
            for o in opts.values():
                o.step()
{inner}
{outer}
"""
_BY_STORE = """    table = {}
    for key, o in opts.items():
        table[key] = torch.optim.lr_scheduler.StepLR(o, step_size=epochs // 3)"""
_BY_COMPREHENSION = """    table = {key: torch.optim.lr_scheduler.StepLR(o, step_size=epochs // 3) for key, o in opts.items()}"""
_STEP = "for s in table.values():\n    s.step()"


def _indent(text: str, n: int) -> str:
    return "\n".join(" " * n + line for line in text.splitlines())


@pytest.mark.parametrize("built", [_BY_STORE, _BY_COMPREHENSION])
def test_a_dict_filled_by_name_holds_its_schedulers(built: str) -> None:
    # `table[key] = StepLR(...)` in a loop over names (or the same as a dict comprehension):
    # iterating table.values() steps each scheduler, whatever the dict is called; stepped per
    # batch, the StepLR sized in epochs is LRD002
    wrong = _DICT_BY_NAME.format(built=built, inner=_indent(_STEP, 12), outer="")
    assert "LRD002" in codes(wrong)
    right = _DICT_BY_NAME.format(built=built, inner="", outer=_indent(_STEP, 8))
    assert "LRD002" not in codes(right)


def test_a_dict_filled_by_name_saved_whole_is_not_a_missing_state() -> None:
    # the dict of state_dicts is saved with keys lrdoctor cannot see: never LRD007
    src = _DICT_BY_NAME.format(built=_BY_STORE, inner="", outer=_indent(_STEP, 8)) + """
    states = {}
    for key, s in table.items():
        states[key] = s.state_dict()
    torch.save({"opts": {k: o.state_dict() for k, o in opts.items()}, "scheds": states}, "last.pt")
"""
    assert "LRD007" not in codes(src)


@pytest.mark.parametrize("backward", [
    "(net(x).mean() + 0.1 * net(x).abs().mean()).backward()",
    "sum(head(x).mean() for head in heads).backward()",
    "losses = {'main': net(x).mean()}\n            losses['main'].backward()",
])
def test_a_backward_on_a_computed_tensor_is_a_backward_pass(backward: str) -> None:
    # the loop over `batches` trains on every pass: a backward on an expression (a sum, a
    # subscript) is a backward pass as much as `loss.backward()` is
    src = f"""
import torch

def fit(net, heads, batches, epochs):
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=epochs // 3)
    for epoch in range(epochs):
        for x in batches:
            opt.zero_grad()
            {backward}
            opt.step()
            sched.step()
"""
    assert "LRD002" in codes(src)
    assert "LRD002" not in codes(src.replace("            sched.step()\n", "        sched.step()\n"))


_ANNOTATED_BUILT = """
import torch
from torch.optim.lr_scheduler import LRScheduler


def train(cfg, model, batches, factory):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    s{annotation} = factory(cfg, opt)
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(10):
        for x in batches:
            opt.zero_grad()
            with torch.autocast("cuda", dtype=torch.float16):
                loss = model(x).mean()
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            s.step()
"""


@pytest.mark.parametrize("annotation, found", [
    (": LRScheduler", True),
    (": torch.optim.lr_scheduler.LRScheduler | None", True),
    ("", False),  # an unknown call bound to a neutral name: nothing says what it is
    (": int", False),
])
def test_an_annotation_names_what_an_unknown_call_built(annotation: str, found: bool) -> None:
    # the scheduler-after-skipped-step rule needs no class or horizon: the annotation says
    # the factory's result is a torch scheduler
    assert ("LRD005" in codes(_ANNOTATED_BUILT.format(annotation=annotation))) is found


_LAMBDA_FACTORY = """
import torch


class Runner:
    def __init__(self, net, make=None):
        self.opt = torch.optim.SGD(net.parameters(), lr=0.1)
        self.s = make(self.opt) if make is not None else None
        self.net = net

    def fit(self, batches, epochs):
        for epoch in range(epochs):
            for x in batches:
                self.opt.zero_grad()
                self.net(x).mean().backward()
                self.opt.step()
{inner}
{outer}


def main(net, batches, epochs):
    make = lambda o: torch.optim.lr_scheduler.StepLR(o, step_size=epochs // 3)
    Runner(net, make=make).fit(batches, epochs)
"""


def test_a_lambda_that_builds_the_scheduler_is_followed() -> None:
    # `make = lambda o: StepLR(o, ...)` handed to the class that calls it with its optimizer:
    # the lambda is a function like any other, whatever its result is called
    step = "if self.s is not None:\n    self.s.step()"
    wrong = _LAMBDA_FACTORY.format(inner=_indent(step, 16), outer="")
    assert "LRD002" in codes(wrong)
    right = _LAMBDA_FACTORY.format(inner="", outer=_indent(step, 12))
    assert "LRD002" not in codes(right)


_MICRO_BATCH_SCHEDULE = """
import torch
from transformers import get_cosine_schedule_with_warmup


def fit(net, batches, accumulate, warmup, total):
    opt = torch.optim.AdamW(net.parameters(), lr=1e-4)
    schedule = get_cosine_schedule_with_warmup(opt, num_warmup_steps={warmup},
                                               num_training_steps={total})
    done = 0
    for x in batches:
        (net(x).mean() / accumulate).backward()
        done += 1
        if done % accumulate == 0:
            opt.step()
            opt.zero_grad()
        schedule.step()
"""


def test_a_schedule_scaled_up_by_the_accumulation_count_may_step_per_micro_batch() -> None:
    # the horizon is the update count times `accumulate`: it is meant to step per micro-batch
    scaled = _MICRO_BATCH_SCHEDULE.format(warmup="warmup * accumulate", total="total * accumulate")
    assert "LRD017" not in codes(scaled)
    # sized in updates, stepped per micro-batch: spent `accumulate` times too fast
    assert "LRD017" in codes(_MICRO_BATCH_SCHEDULE.format(warmup="warmup", total="total"))


_HELD_CLASS = """
import torch
from torch.optim import lr_scheduler


class Sched:
    def __init__(self, optimizer, kind, options):
        self.s3 = getattr({module}, kind)
        self.s3 = self.s3(optimizer, **options)

    def step(self):
        self.s3.step()


def train(net, batches, kind, options):
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    s = Sched(opt, kind, options)
    scaler = torch.amp.GradScaler("cuda")
    for x in batches:
        opt.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = net(x).mean()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        s.step()
"""


def test_a_class_picked_from_torch_and_held_on_self_is_a_scheduler() -> None:
    # `self.s3 = getattr(lr_scheduler, kind)` then `self.s3(optimizer, ...)`: a class of
    # torch's scheduler module, stepped after a step GradScaler may skip (LRD005)
    assert "LRD005" in codes(_HELD_CLASS.format(module="lr_scheduler"))
    assert "LRD005" not in codes(_HELD_CLASS.format(module="torch.nn"))
