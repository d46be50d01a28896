"""Shapes met in the fresh real-code cases of issue 7 on mixed precision, resume and
accumulation (bench/realcode, batch "fresh-2026-12c", dev half): each test is the general
shape in our own words, next to the control that must stay as it is."""

from __future__ import annotations

from tests.check.helpers import codes


def _fill(template: str, **parts: str) -> str:
    for name, text in parts.items():
        template = template.replace("{" + name + "}", text)
    return template


# -- a checkpoint built by calling a TypedDict class ----------------------------------------
# Calling a `class State(TypedDict)` builds a plain dict of its arguments: a checkpoint made
# of one holds exactly the objects passed to it, as `dict(...)` or a dict literal would.

_TYPED_DICT_STATE = """
{imports}
import torch


class RunState({base}):
    model: torch.nn.Module
    optimizer: torch.optim.Optimizer
{extra_field}    step: int


def write_state(path, state):
    torch.save(state, path)


def train(model, batches, total_steps):
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=3e-4, total_steps=total_steps)
    state = RunState(model=model, optimizer=optimizer, {extra_arg}step=-1)
    for step in range(total_steps):
        state["step"] = step
        loss = model(next(batches)).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        scheduler.step()
        if step % 500 == 0:
            write_state("run.pt", state)
"""


def _typed_dict_state(imports: str = "from typing import TypedDict",
                      base: str = "TypedDict", with_scheduler: bool = False,
                      extra_arg: str = "") -> str:
    return _fill(
        _TYPED_DICT_STATE,
        imports=imports,
        base=base,
        extra_field="    scheduler: object\n" if with_scheduler else "",
        extra_arg=extra_arg or ("scheduler=scheduler, " if with_scheduler else ""),
    )


def test_typed_dict_checkpoint_without_the_scheduler_loses_the_schedule() -> None:
    assert codes(_typed_dict_state()) == ["LRD007"]


def test_typed_dict_spelled_through_the_typing_module() -> None:
    assert codes(_typed_dict_state(imports="import typing", base="typing.TypedDict")) == [
        "LRD007"
    ]


def test_typed_dict_from_typing_extensions() -> None:
    assert codes(_typed_dict_state(imports="from typing_extensions import TypedDict")) == [
        "LRD007"
    ]


def test_control_typed_dict_checkpoint_holding_the_scheduler_is_complete() -> None:
    assert codes(_typed_dict_state(with_scheduler=True)) == []


def test_control_typed_dict_built_with_unknown_extra_entries_is_not_judged() -> None:
    # `**extra` may hold the scheduler: part of the checkpoint is unknown, so it stays silent
    assert codes(_typed_dict_state(extra_arg="**extra, ")) == []


def test_control_an_ordinary_class_is_not_a_dict() -> None:
    # a plain class called with the same arguments is an object, not a mapping of them:
    # its pickled form is not read as a checkpoint of the optimizer (no finding, as before)
    source = _typed_dict_state(imports="", base="object")
    assert "LRD007" not in codes(source)


# -- one scheduler stepped twice in one pass through the batch loop --------------------------
# The mixed-precision branch steps the scheduler right after the scaler's update, and the
# code after the `if` steps it again for both branches: with AMP on, every update advances
# the schedule twice (LRD017, the scheduler steps more often than its optimizer).

_TWICE = """
import torch


def fit(net, train_loader, epochs, use_amp):
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.05, total_steps=epochs * len(train_loader))
    scaler = torch.amp.GradScaler("cuda", enabled=use_amp)
    for epoch in range(epochs):
        for i, (x, y) in enumerate(train_loader):
            opt.zero_grad()
            with torch.autocast("cuda", enabled=use_amp):
                loss = torch.nn.functional.mse_loss(net(x), y)
            if use_amp:
                scaler.scale(loss).backward()
                scaler.step(opt)
                scaler.update()
{inner_step}
            else:
                loss.backward()
                opt.step()
{else_step}
{after}
"""


def _twice(inner_step: str = "                sched.step()", else_step: str = "",
           after: str = "            sched.step()") -> str:
    return _fill(_TWICE, inner_step=inner_step, else_step=else_step, after=after)


def test_scheduler_stepped_in_the_amp_branch_and_again_after_it() -> None:
    assert codes(_twice()).count("LRD017") == 1


def test_scheduler_stepped_twice_in_a_row_every_batch() -> None:
    source = _twice(inner_step="                pass",
                    after="            sched.step()\n            sched.step()")
    assert codes(source).count("LRD017") == 1


def test_control_one_step_in_each_branch_is_once_per_update() -> None:
    source = _twice(else_step="                sched.step()", after="")
    assert "LRD017" not in codes(source)


def test_control_one_step_after_the_branches_is_once_per_update() -> None:
    source = _twice(inner_step="                pass")
    assert "LRD017" not in codes(source)


def test_control_second_step_under_a_guard_of_its_own() -> None:
    # once per epoch at the last batch, not a second step on every batch
    source = _twice(after="            sched.step()\n"
                          "            if i == len(train_loader) - 1:\n"
                          "                sched.step()",
                    inner_step="                pass")
    assert "LRD017" not in codes(source)


def test_control_step_with_a_position_names_where_the_schedule_is() -> None:
    # `step(epoch)` sets the position: a second call does not advance it again
    source = _twice(inner_step="                sched.step(epoch)")
    assert "LRD017" not in codes(source)


_TWO_SCHEDULERS = """
import torch


def fit(gen, disc, train_loader, total):
    opt_g = torch.optim.Adam(gen.parameters(), lr=2e-4)
    opt_d = torch.optim.Adam(disc.parameters(), lr=2e-4)
    sched_g = torch.optim.lr_scheduler.LinearLR(opt_g, 1.0, 0.0, total_iters=total)
    sched_d = torch.optim.lr_scheduler.LinearLR(opt_d, 1.0, 0.0, total_iters=total)
    for x in train_loader:
        opt_d.zero_grad()
        disc(x).mean().backward()
        opt_d.step()
        opt_g.zero_grad()
        gen(x).mean().backward()
        opt_g.step()
        sched_g.step()
        sched_d.step()
"""


def test_control_two_optimizers_each_with_its_scheduler() -> None:
    assert "LRD017" not in codes(_TWO_SCHEDULERS)


_TWO_UPDATES = """
import torch


def fit(net, train_loader, total):
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.LinearLR(opt, 1.0, 0.0, total_iters=2 * total)
    for x, y in train_loader:
        for half in (x[: len(x) // 2], x[len(x) // 2:]):
            pass
        opt.zero_grad()
        net(x).mean().backward()
        opt.step()
        sched.step()
        opt.zero_grad()
        net(y).mean().backward()
        opt.step()
        sched.step()
"""


def test_control_two_updates_and_two_steps_per_batch() -> None:
    # two updates per batch, each followed by its step: once per update
    assert "LRD017" not in codes(_TWO_UPDATES)


# -- a GradScaler built in the `else` of a conditional expression ----------------------------
# `None if not amp else GradScaler()` is built exactly when `amp` is on, as
# `GradScaler() if amp else None` is: the scaler's switch is the negated test.

_ENGINE = """
import torch


class Engine:
    def __init__(self, model, optimizer, lr_scheduler, amp=False):
        self.model = model
        self.optimizer = optimizer
        self.lr_scheduler = lr_scheduler
        self.grad_scaler = {scaler}

    def backward(self, loss):
        if self.grad_scaler is not None:
            self.grad_scaler.scale(loss).backward()
        else:
            loss.backward()

    def step(self):
        if self.grad_scaler is not None:
            self.grad_scaler.step(self.optimizer)
            self.grad_scaler.update()
        else:
            self.optimizer.step()
        self.lr_scheduler.step()

    def save(self, folder):
        torch.save(self.model.state_dict(), folder + "/model.pt")
        torch.save(self.optimizer.state_dict(), folder + "/optimizer.pt")
        torch.save(self.lr_scheduler.state_dict(), folder + "/scheduler.pt")
{scaler_file}

def train(model, train_loader, total, amp):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, 1.0, 0.0, total_iters=total)
    engine = Engine(model, optimizer, scheduler, amp=amp)
    for i, batch in enumerate(train_loader):
        engine.backward(model(batch).mean())
        engine.step()
        if i % 1000 == 0:
            engine.save("ckpt")
"""


def _engine(scaler: str = 'None if not amp else torch.amp.GradScaler("cuda")',
            scaler_file: str = "") -> str:
    return _fill(_ENGINE, scaler=scaler, scaler_file=scaler_file)


def test_scaler_in_the_else_of_a_negated_test_is_switched_by_the_flag() -> None:
    assert "LRD005" in codes(_engine())


def test_scaler_in_the_else_of_a_plain_test_is_on_when_the_test_fails() -> None:
    source = _engine(scaler='None if amp_off else torch.amp.GradScaler("cuda")')
    assert "LRD005" in codes(source)


def test_control_scaler_in_the_else_of_a_hardware_test_stays_unknown() -> None:
    # built when CUDA is there: the file does not say whether float16 AMP runs
    source = _engine(scaler='None if not torch.cuda.is_available() else '
                            'torch.amp.GradScaler("cuda")')
    assert "LRD005" not in codes(source)


def test_control_scaler_never_built_in_a_conditional_expression() -> None:
    source = _engine(scaler='None if True else torch.amp.GradScaler("cuda")')
    assert "LRD005" not in codes(source)


# -- a checkpoint written as one file per state ---------------------------------------------
# The optimizer's file, the scheduler's file and the model's file written together are one
# checkpoint: without a file for the GradScaler a resume restarts the loss scale.

def test_checkpoint_of_one_file_per_state_without_the_scaler() -> None:
    assert "LRD007" in codes(_engine())


def test_control_checkpoint_of_one_file_per_state_with_the_scaler() -> None:
    source = _engine(scaler_file='        torch.save(self.grad_scaler.state_dict(), '
                                 'folder + "/scaler.pt")\n')
    assert "LRD007" not in codes(source)


_FILES_WITHOUT_SCHEDULER = """
import torch


def train(model, train_loader, total):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=total)
    for i, (x, y) in enumerate(train_loader):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        if i % 500 == 0:
            torch.save(model.state_dict(), "model.pt")
            torch.save(optimizer.state_dict(), "optimizer.pt"){scheduler_file}
"""


def test_checkpoint_of_one_file_per_state_without_the_scheduler() -> None:
    assert codes(_fill(_FILES_WITHOUT_SCHEDULER, scheduler_file="")) == ["LRD007"]


def test_control_checkpoint_of_one_file_per_state_with_the_scheduler() -> None:
    source = _fill(_FILES_WITHOUT_SCHEDULER,
                   scheduler_file='\n            torch.save(scheduler.state_dict(), "sched.pt")')
    assert codes(source) == []


def test_control_weights_only_file_is_no_checkpoint() -> None:
    source = _FILES_WITHOUT_SCHEDULER.replace(
        '\n            torch.save(optimizer.state_dict(), "optimizer.pt"){scheduler_file}', "")
    assert codes(source) == []
