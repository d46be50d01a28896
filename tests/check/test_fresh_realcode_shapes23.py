"""A shape met in the fresh-2026-12zd batch of real code (issue 7), written in our own words.

On-policy reinforcement learning collects experience in chunks and trains on each chunk for a
few passes of minibatch updates. A widely copied recipe builds the collector from a total
budget and a chunk size (``Collector(env, per_chunk=frames_per_batch, total=total_frames)``),
sizes a cosine schedule by how many chunks that yields (``T_max=total_frames //
frames_per_batch``), and steps the scheduler once per chunk, after the minibatch updates, at
the bottom of ``for i, chunk in enumerate(collector):``.

The checker read "per_batch" in the horizon, saw the step outside the update loops and
reported LRD003 (a batch-sized horizon stepped once per epoch). But the horizon is the number
of items the stepped loop's own iterable yields: the total it was built with divided by the
chunk size it was built with. The schedule is stepped once per pass of that loop and ends
exactly with it. Such a horizon now counts the passes of that loop (also through ``int()``, a
progress bar around the collector, a name bound to the quotient, and local names bound to the
settings the collector was built from).

Controls that keep LRD003: the horizon counting every minibatch update (``chunks * passes *
minibatches``) stepped once per chunk; a horizon that is the chunk size alone (not the number
of chunks); a quotient of two numbers the collector was not built from; and the plain bug of
a data loader's batches per epoch stepped once per epoch.
"""

from __future__ import annotations

from tests.check.helpers import findings

_PPO = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR
from rl_lib import Collector, Buffer

frames_per_batch = 1000
total_frames = 50_000
sub_batch_size = 64
num_epochs = 10

policy = torch.nn.Linear(8, 2)
collector = Collector(make_env(), policy, frames_per_batch=frames_per_batch,
                      total_frames=total_frames)
buffer = Buffer(frames_per_batch)
optim = torch.optim.Adam(policy.parameters(), 3e-4)
scheduler = CosineAnnealingLR(optim, {HORIZON}, 0.0)

for i, chunk in {ITER}:
    for _ in range(num_epochs):
        buffer.extend(chunk)
        for _ in range(frames_per_batch // sub_batch_size):
            sample = buffer.sample(sub_batch_size)
            loss = policy(sample).pow(2).mean()
            loss.backward()
            optim.step()
            optim.zero_grad()
    scheduler.step()
"""


def _ppo(horizon: str, over: str = "enumerate(collector)") -> str:
    return _PPO.replace("{HORIZON}", horizon).replace("{ITER}", over)


def test_chunks_of_the_collector_stepped_once_per_chunk_is_silent() -> None:
    assert findings(_ppo("total_frames // frames_per_batch")) == []


def test_chunk_count_through_a_name_and_int_division_is_silent() -> None:
    src = _ppo("n_chunks").replace(
        "optim = torch.optim", "n_chunks = int(total_frames / frames_per_batch)\noptim = torch.optim")
    assert findings(src) == []


def test_chunks_with_a_progress_bar_around_the_collector_are_silent() -> None:
    src = _ppo("total_frames // frames_per_batch", "enumerate(tqdm(collector))")
    assert findings("from tqdm import tqdm\n" + src) == []


def test_every_update_counted_but_stepped_once_per_chunk_is_reported() -> None:
    horizon = ("(total_frames // frames_per_batch) * num_epochs"
               " * (frames_per_batch // sub_batch_size)")
    assert [c for c, _ in findings(_ppo(horizon))] == ["LRD003"]


def test_the_chunk_size_alone_is_not_the_chunk_count() -> None:
    assert [c for c, _ in findings(_ppo("frames_per_batch"))] == ["LRD003"]


def test_a_quotient_the_collector_was_not_built_from_is_reported() -> None:
    src = _ppo("total_frames // sub_batch_size")
    assert [c for c, _ in findings(src)] == ["LRD003"]


def test_batches_per_epoch_stepped_once_per_epoch_is_still_reported() -> None:
    src = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR
from torch.utils.data import DataLoader


def train(model, dataset, batch_size, epochs):
    loader = DataLoader(dataset, batch_size=batch_size)
    optim = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = CosineAnnealingLR(optim, T_max=len(dataset) // batch_size)
    for epoch in range(epochs):
        for x, y in loader:
            optim.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optim.step()
        scheduler.step()
"""
    assert [c for c, _ in findings(src)] == ["LRD003"]


def test_collector_built_from_settings_and_horizon_from_their_local_names_is_silent() -> None:
    src = _ppo("total_frames // frames_per_batch").replace(
        "frames_per_batch=frames_per_batch,\n                      total_frames=total_frames",
        "frames_per_batch=cfg.frames_per_batch,\n                      total_frames=cfg.total_frames",
    ).replace("frames_per_batch = 1000\ntotal_frames = 50_000",
              "frames_per_batch = cfg.frames_per_batch\ntotal_frames = cfg.total_frames")
    assert "cfg.total_frames" in src
    assert findings("from rl_lib import cfg\n" + src) == []


def test_collector_built_from_other_settings_is_reported() -> None:
    src = _ppo("total_frames // frames_per_batch").replace(
        "frames_per_batch=frames_per_batch,\n                      total_frames=total_frames",
        "frames_per_batch=cfg.chunk,\n                      total_frames=cfg.budget",
    )
    assert "cfg.budget" in src
    assert [c for c, _ in findings("from rl_lib import cfg\n" + src)] == ["LRD003"]


def test_a_fraction_of_the_chunk_count_is_silent() -> None:
    src = _ppo("total_frames // frames_per_batch // 3").replace(
        "CosineAnnealingLR(optim, total_frames // frames_per_batch // 3, 0.0)",
        "StepLR(optim, total_frames // frames_per_batch // 3)").replace(
        "import CosineAnnealingLR", "import StepLR")
    assert "StepLR(optim" in src
    assert findings(src) == []


def test_twice_the_chunk_count_is_reported() -> None:
    src = _ppo("(total_frames // frames_per_batch) * 2")
    assert [c for c, _ in findings(src)] == ["LRD003"]


def test_a_warmup_builder_sized_by_the_chunk_count_is_silent() -> None:
    src = _ppo("x").replace(
        "CosineAnnealingLR(optim, x, 0.0)",
        "get_linear_schedule_with_warmup(optim, 5, total_frames // frames_per_batch)").replace(
        "from torch.optim.lr_scheduler import CosineAnnealingLR",
        "from transformers import get_linear_schedule_with_warmup")
    assert "get_linear_schedule_with_warmup(optim, 5" in src
    assert findings(src) == []


_ROUNDS = """
import torch
from transformers import get_cosine_schedule_with_warmup


def train(model, loader, n_rounds):
    optim = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = get_cosine_schedule_with_warmup(optim, 2, {HORIZON})
    for r in range(n_rounds):
        for x, y in loader:
            optim.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optim.step()
        scheduler.step()
"""


def test_a_warmup_builder_sized_by_the_count_of_its_own_range_loop_is_silent() -> None:
    assert findings(_ROUNDS.replace("{HORIZON}", "n_rounds")) == []


def test_a_warmup_builder_sized_by_every_batch_of_the_rounds_is_reported() -> None:
    src = _ROUNDS.replace("{HORIZON}", "n_rounds * len(loader)")
    assert [c for c, _ in findings(src)] == ["LRD003"]
