"""A horizon counted in chunks, stepped once per pass that consumes one chunk.

An on-policy RL loop collects a chunk of frames per pass of its outer loop and splits it into
minibatch updates inside (``for _ in range(frames_per_chunk // minibatch):``); its scheduler is
sized ``total_frames // frames_per_chunk`` and stepped once per pass. The horizon counts passes,
the units it is stepped in, although the chunk's name says "batch" (LRD003 said the horizon
was counted in batches and stepped per epoch, at error level). Found in fphunt40's scan (a copy
of TorchRL's PPO recipe, its collector built by a helper in another module). A horizon divided
by the minibatch size, a count of updates, is still reported.

Programs written for these tests; no third-party code.
"""

from __future__ import annotations

import pytest

from .helpers import codes

PROGRAM = """
import torch

TOTAL_FRAMES = 100_000
FRAMES_PER_BATCH = 1_000
MINIBATCH = 64
EPOCHS_PER_CHUNK = 10


def make_parts(env, model):
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)
    collector = env.collector(model, frames_per_batch=FRAMES_PER_BATCH, total_frames=TOTAL_FRAMES)
    buffer = env.buffer(FRAMES_PER_BATCH)
    return optimizer, collector, buffer


def train(env, model, loss_fn):
    optimizer, collector, buffer = make_parts(env, model)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, HORIZON, 0.0)
    for i, chunk in enumerate(collector):
        for _ in range(EPOCHS_PER_CHUNK):
            buffer.extend(chunk)
            for _ in range(FRAMES_PER_BATCH // MINIBATCH):
                loss = loss_fn(buffer.sample(MINIBATCH))
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
        scheduler.step()
"""


@pytest.mark.parametrize("horizon", ["TOTAL_FRAMES // FRAMES_PER_BATCH",
                                     "int(TOTAL_FRAMES / FRAMES_PER_BATCH)"])
def test_a_horizon_in_chunks_stepped_once_per_chunk_is_correct(horizon: str) -> None:
    assert "LRD003" not in codes(PROGRAM.replace("HORIZON", horizon))


def test_control_a_horizon_in_minibatch_updates_stepped_once_per_chunk_is_reported() -> None:
    assert "LRD003" in codes(PROGRAM.replace("HORIZON", "TOTAL_FRAMES // MINIBATCH"))


def test_control_a_chunk_the_inner_loops_do_not_split_says_nothing() -> None:
    # the horizon's divisor is not what the updates inside a pass split
    source = PROGRAM.replace("HORIZON", "TOTAL_FRAMES // EVAL_BATCH").replace(
        "MINIBATCH = 64\n", "MINIBATCH = 64\nEVAL_BATCH = 16\n")
    assert "LRD003" in codes(source)
