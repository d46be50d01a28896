"""A GradScaler switched by a flag (`GradScaler(enabled=args.amp)`): the float16 bugs happen
exactly when the flag is on, so they are reported, saying so; `enabled=False` never skips."""

from __future__ import annotations

from tests.check.helpers import codes, findings, messages

ONECYCLE_LOOP = """
import argparse
import torch
from torch.utils.data import DataLoader

parser = argparse.ArgumentParser()
parser.add_argument("--amp", action="store_true")
args = parser.parse_args()
cfg = {{"AMP": True}}
model = torch.nn.Linear(4, 1)
loader = DataLoader(list(range(64)), batch_size=8)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1,
                                                total_steps=10 * len(loader))
scaler = {scaler}
for epoch in range(10):
    for x in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", enabled=args.amp):
            loss = model(x).sum()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        scheduler.step()
"""


def test_scheduler_after_scaler_enabled_by_args_flag_is_reported_when_the_flag_is_on() -> None:
    src = ONECYCLE_LOOP.format(scaler='torch.amp.GradScaler("cuda", enabled=args.amp)')
    assert findings(src) == [("LRD005", 24)]
    assert messages(src)[0].startswith("When `args.amp` is on, `scheduler.step()` runs every")


def test_scheduler_after_scaler_enabled_by_config_key_is_reported() -> None:
    src = ONECYCLE_LOOP.format(scaler='torch.amp.GradScaler("cuda", enabled=cfg["AMP"])')
    assert codes(src) == ["LRD005"]
    assert messages(src)[0].startswith("When `cfg['AMP']` is on, ")


def test_scaler_built_only_when_the_flag_is_on_is_reported() -> None:
    src = ONECYCLE_LOOP.format(scaler='torch.amp.GradScaler("cuda") if args.amp else None')
    assert codes(src) == ["LRD005"]
    assert "`args.amp` is on" in messages(src)[0]


def test_scaler_disabled_by_a_literal_never_skips() -> None:
    src = ONECYCLE_LOOP.format(scaler='torch.amp.GradScaler("cuda", enabled=False)')
    assert codes(src) == []


def test_scheduler_guarded_by_the_scale_under_a_flag_is_fine() -> None:
    src = ONECYCLE_LOOP.format(
        scaler='torch.amp.GradScaler("cuda", enabled=args.amp)'
    ).replace(
        "        scaler.update()\n        scheduler.step()\n",
        "        scale = scaler.get_scale()\n        scaler.update()\n"
        "        if scale <= scaler.get_scale():\n            scheduler.step()\n",
    )
    assert codes(src) == []


CHECKPOINT = """
import torch
from torch.utils.data import DataLoader

def train(args):
    model = torch.nn.Linear(4, 1)
    loader = DataLoader(list(range(64)), batch_size=8)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cuda", enabled=args.use_amp)
    for epoch in range(10):
        for x in loader:
            optimizer.zero_grad()
            scaler.scale(model(x).sum()).backward()
            scaler.step(optimizer)
            scaler.update()
        torch.save({{"model": model.state_dict(), "optimizer": optimizer.state_dict(){extra}}},
                   "last.pt")
"""


def test_checkpoint_without_flag_switched_scaler_is_reported() -> None:
    src = CHECKPOINT.format(extra="")
    assert findings(src) == [("LRD007", 16)]
    assert "the GradScaler's (`scaler`, when `args.use_amp` is on)" in messages(src)[0]


def test_checkpoint_with_flag_switched_scaler_is_fine() -> None:
    assert codes(CHECKPOINT.format(extra=', "scaler": scaler.state_dict()')) == []


def test_checkpoint_without_a_disabled_scaler_is_fine() -> None:
    src = CHECKPOINT.format(extra="").replace("enabled=args.use_amp", "enabled=False")
    assert codes(src) == []


def test_scaler_built_under_an_if_flag_is_reported_when_the_flag_is_on() -> None:
    src = ONECYCLE_LOOP.format(scaler="None").replace(
        "scaler = None\n",
        "scaler = None\nif args.amp:\n    scaler = torch.amp.GradScaler(\"cuda\")\n",
    ).replace("        scaler.scale(loss).backward()\n        scaler.step(optimizer)\n"
              "        scaler.update()\n",
              "        if args.amp:\n            scaler.scale(loss).backward()\n"
              "            scaler.step(optimizer)\n            scaler.update()\n"
              "        else:\n            loss.backward()\n            optimizer.step()\n")
    assert codes(src) == ["LRD005"]
    assert messages(src)[0].startswith("When `args.amp` is on, ")


def test_scaler_built_under_the_main_guard_is_always_on() -> None:
    src = ONECYCLE_LOOP.format(scaler='torch.amp.GradScaler("cuda")')
    body = src.split("scaler = ", 1)
    guarded = body[0] + "if __name__ == \"__main__\":\n" + "\n".join(
        "    " + line if line else line for line in ("scaler = " + body[1]).splitlines()
    ) + "\n"
    assert codes(guarded) == ["LRD005"]
    assert messages(guarded)[0].startswith("`scheduler.step()` runs every batch")


ELSE_BUILT = """
import argparse
import torch
from torch.utils.data import DataLoader

parser = argparse.ArgumentParser()
parser.add_argument("--amp", action="store_true")
parser.add_argument("--bf16", action="store_true")
args = parser.parse_args()
model = torch.nn.Linear(4, 1)
loader = DataLoader(list(range(64)), batch_size=8)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1,
                                                total_steps=10 * len(loader))
{build}
for epoch in range(10):
    for x in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", enabled=args.amp):
            loss = model(x).sum()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        scheduler.step()
"""


def test_scaler_built_in_the_else_of_a_negated_flag_says_when_the_flag_is_on() -> None:
    # `if not args.amp: ... else: scaler = GradScaler()`: built exactly when args.amp is on
    src = ELSE_BUILT.format(build=(
        'if not args.amp:\n    scaler = torch.amp.GradScaler("cuda", enabled=False)\n'
        'else:\n    scaler = torch.amp.GradScaler("cuda")'))
    assert codes(src) == ["LRD005"]
    assert messages(src)[0].startswith("When `args.amp` is on, `scheduler.step()` runs every")


def test_scaler_built_in_the_else_of_a_literal_switch_that_is_on_is_always_on() -> None:
    src = ELSE_BUILT.format(build=(
        'use_amp = True\nif not use_amp:\n    scaler = torch.amp.GradScaler("cuda", enabled=False)\n'
        'else:\n    scaler = torch.amp.GradScaler("cuda")'))
    assert codes(src) == ["LRD005"]
    assert messages(src)[0].startswith("`scheduler.step()` runs every")


def test_scaler_built_in_the_else_of_an_elif_chain_names_no_single_flag() -> None:
    # the final `else` of `if args.bf16: ... elif not args.amp: ... else:` holds when both
    # tests fail: the negation of the last test alone would misstate it
    src = ELSE_BUILT.format(build=(
        'if args.bf16:\n    scaler = torch.amp.GradScaler("cuda", enabled=False)\n'
        'elif not args.amp:\n    scaler = torch.amp.GradScaler("cuda", enabled=False)\n'
        'else:\n    scaler = torch.amp.GradScaler("cuda")'))
    assert codes(src) == ["LRD005"]
    assert messages(src)[0].startswith("`scheduler.step()` runs every")
