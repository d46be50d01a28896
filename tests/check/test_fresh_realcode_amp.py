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
