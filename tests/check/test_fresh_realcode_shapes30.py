"""A shape met while reading the fresh-2026-12zj batch of real code (issue 7), in our own words.

One driver serves several modes: an export mode casts the model to float16, exports it
(ONNX, TorchScript, a half checkpoint) and returns, or exits, before anything trains; the
training code after that branch builds Adam on the model and steps it. The float16 cast
never reaches the training path: the branch that made it ends in ``return`` (or ``raise``,
``sys.exit()``), so every run that gets to the optimizer took the other way and trains
float32 parameters. lrdoctor matched the cast to the optimizer by name alone and reported
Adam's eps as a float16 hazard (a false LRD102).

Still reported: a cast under a flag that does not leave (``if args.fp16: model.half()``);
a branch that casts, trains and then returns (its own optimizer is reported, not the one
built after the branch); an optimizer built before a leaving branch that casts and then
trains with it; a second,
unconditional cast besides the exporting one; and a leaving branch that escapes its
``return`` through a ``break`` out of the enclosing loop.
"""

from __future__ import annotations

from tests.check.helpers import codes, findings

_DRIVER = """
import argparse
import sys
import torch


def export(model):
    torch.onnx.export(model, torch.randn(1, 4, dtype=torch.float16), "model.onnx")


def main(args):
    model = torch.nn.Linear(4, 1).cuda()
{MODE}
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(100):
        loss = model(torch.randn(8, 4, device="cuda")).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--onnx", action="store_true")
    parser.add_argument("--fp16", action="store_true")
    main(parser.parse_args())
"""


def driver(mode: str) -> str:
    return _DRIVER.replace("{MODE}", mode)


# -- the cast stays in a branch that leaves: silent -------------------------------------------


def test_export_branch_that_casts_and_returns_is_silent() -> None:
    src = driver("""\
    if args.onnx:
        model.eval()
        model = model.to(torch.float16)
        export(model)
        return""")
    assert codes(src) == []


def test_export_branch_that_casts_in_place_and_exits_is_silent() -> None:
    src = driver("""\
    if args.onnx:
        model.half()
        export(model)
        sys.exit(0)""")
    assert codes(src) == []


def test_cast_under_a_nested_flag_inside_a_returning_branch_is_silent() -> None:
    src = driver("""\
    if args.onnx:
        model.eval()
        if args.fp16:
            model = model.half()
        export(model)
        return""")
    assert codes(src) == []


def test_export_branch_ending_in_raise_is_silent() -> None:
    src = driver("""\
    if args.onnx:
        model = model.half()
        export(model)
        raise SystemExit(0)""")
    assert codes(src) == []


def test_module_level_export_mode_that_exits_is_silent() -> None:
    src = """
import sys
import torch

EXPORT = "--export" in sys.argv
model = torch.nn.Linear(4, 1).cuda()
if EXPORT:
    model.half()
    torch.save(model.state_dict(), "half.pt")
    sys.exit()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(100):
    loss = model(torch.randn(8, 4, device="cuda")).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""
    assert codes(src) == []


# -- the cast reaches the optimizer: still reported ---------------------------------------------


def test_cast_under_a_flag_that_does_not_leave_is_reported() -> None:
    src = driver("""\
    if args.fp16:
        model = model.half()""")
    assert findings(src) == [("LRD102", 15)]


def test_branch_that_casts_trains_and_returns_is_reported() -> None:
    src = driver("""\
    if args.fp16:
        model = model.half()
        opt16 = torch.optim.Adam(model.parameters(), lr=1e-3)
        for step in range(100):
            loss = model(torch.randn(8, 4, device="cuda").half()).float().pow(2).mean()
            opt16.zero_grad()
            loss.backward()
            opt16.step()
        return""")
    assert findings(src) == [("LRD102", 15)]


def test_second_unconditional_cast_besides_the_export_branch_is_reported() -> None:
    src = driver("""\
    if args.onnx:
        export(model.half())
        return
    model = model.to(torch.float16)""")
    assert codes(src) == ["LRD102"]


def test_branch_whose_return_a_break_can_skip_is_reported() -> None:
    src = driver("""\
    for attempt in range(3):
        if args.onnx:
            model = model.half()
            if attempt > 0:
                break
            export(model)
            return""")
    assert codes(src) == ["LRD102"]


def test_optimizer_built_before_a_branch_that_casts_and_trains_is_reported() -> None:
    src = """
import sys
import torch

model = torch.nn.Linear(4, 1).cuda()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)


def fit(steps):
    for step in range(steps):
        loss = model(torch.randn(8, 4, device="cuda").to(next(model.parameters()).dtype))
        optimizer.zero_grad()
        loss.float().pow(2).mean().backward()
        optimizer.step()


if "--half" in sys.argv:
    model.half()
    fit(100)
    sys.exit()
fit(100)
"""
    assert findings(src) == [("LRD102", 6)]
