"""An epoch loop written as a counted ``while`` (``epoch = 0`` / ``while epoch < CFG.epochs:``
/ ``epoch += 1`` at the end of each pass) makes the passes of ``for epoch in
range(CFG.epochs)``: lead61, from metamorphic.py's structural rewrites of a dev case (a Kaggle
G2Net notebook whose CosineAnnealingLR(T_max=3) is stepped once per epoch for 10 epochs). The
cosine overrun (LRD010) was found under the ``for`` and lost under the ``while``: the trace
counts the passes of ``range`` loops only. The rule now reads the ``while``'s bound as the file
states it, and its message quotes the ``while``'s test."""

from __future__ import annotations

import pytest

from .helpers import findings, messages

PROGRAM = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR


class CFG:
    epochs = 10
    T_max = {t_max}


model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = CosineAnnealingLR(optimizer, T_max=CFG.T_max)
loader = [(torch.randn(8, 4), torch.randn(8, 1))] * 10
{loop}
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    scheduler.step()
{tail}
"""

WHILE = ("epoch = 0\nwhile epoch < CFG.epochs:", "    epoch += 1")
FOR = ("for epoch in range(CFG.epochs):", "")


@pytest.mark.parametrize("loop, tail, line", [(*FOR, 20), (*WHILE, 21)])
def test_a_cosine_shorter_than_the_loop_is_found_however_the_loop_is_written(
        loop: str, tail: str, line: int) -> None:
    source = PROGRAM.format(t_max=3, loop=loop, tail=tail)
    assert findings(source) == [("LRD010", line)]


def test_the_message_quotes_the_while_test() -> None:
    source = PROGRAM.format(t_max=3, loop=WHILE[0], tail=WHILE[1])
    assert "runs while `epoch < CFG.epochs`: 7 more epochs than T_max" in messages(source)[0]


@pytest.mark.parametrize("loop, tail", [FOR, WHILE])
def test_a_cosine_as_long_as_the_loop_is_silent(loop: str, tail: str) -> None:
    assert findings(PROGRAM.format(t_max=10, loop=loop, tail=tail)) == []


def test_a_while_whose_counter_starts_where_a_checkpoint_says_is_left_alone() -> None:
    # `epoch = start_epoch` read back from a file: the passes are not the file's to count
    source = PROGRAM.format(t_max=3, loop="epoch = int(open('epoch.txt').read())\n"
                                          "while epoch < CFG.epochs:", tail=WHILE[1])
    assert [code for code, _ in findings(source)] == []
