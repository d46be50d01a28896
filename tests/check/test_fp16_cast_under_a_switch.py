"""LRD102 names the switch a float16 cast of the parameters is made under (``elif
args.fp16: model.to(torch.float16)``): lead61, from a dev case read inside its repository
(okoge-kaz/llm-recipes, whose pure-fp16 mode casts the model before AdamW with eps=1e-8).
The finding is right in that mode only, and said so nowhere; a cast made on every run keeps
its message."""

from __future__ import annotations

from .helpers import findings, messages

PROGRAM = """
import argparse

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--bf16", action="store_true")
parser.add_argument("--fp16", action="store_true")
args = parser.parse_args()

model = torch.nn.Linear(16, 16)
{cast}
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, eps=1e-8)
"""

SWITCHED = """
if args.bf16:
    model.to(torch.bfloat16)
elif args.fp16:
    model.to(torch.float16)
"""


def test_a_cast_under_a_flag_says_when() -> None:
    source = PROGRAM.format(cast=SWITCHED)
    assert findings(source) == [("LRD102", 18)]
    assert "(`model` is cast to float16 at line 16, when `args.fp16` is on)" in messages(source)[0]


def test_a_cast_on_every_run_names_no_switch() -> None:
    source = PROGRAM.format(cast="model.half()")
    assert findings(source) == [("LRD102", 13)]
    assert "(`model` is cast to float16 at line 12)" in messages(source)[0]


def test_a_bfloat16_only_switch_is_silent() -> None:
    assert findings(PROGRAM.format(cast="if args.bf16:\n    model.to(torch.bfloat16)")) == []
