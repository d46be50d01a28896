"""fphunt52: false alarms of unseen real code (BERT / DeBERTa / T5 fine-tuning, CycleGAN and
voice-conversion GANs, Kaggle medical-imaging solutions, ViT and OneCycle experiments), each
fixed by semantics. Every false shape, written here in our own words, must be silent; a buggy
twin must still be reported.

1. LRD017, a schedule sized in loader batches of one process of a distributed run: its
   horizon is ``epochs * (samples // batch_size) // world_size`` and it is stepped on every
   loader batch, while the optimizer steps every ``accum`` batches. Dividing by the number of
   processes shares the batches out among them (a distributed sampler gives each process
   that many); the horizon still counts loader batches, so stepping it on each of them runs
   the whole course as sized. lrdoctor took any division of the horizon for a division by the
   accumulation count (the horizon counted in updates) and reported the per-batch stepping.
   In the repository the count of samples reaches the builder as a parameter its caller
   binds twice (the dataset's length, or a weighted sampler's draw count): the walk could
   not follow it to a ``len()``, yet ``samples // batch_size`` is a count of loader batches
   whatever the samples are, unless the batch size is a whole update's.
"""

from __future__ import annotations

from .helpers import codes

# {divisor}: what the per-epoch count of batches is divided by before it becomes the horizon
_SHARED_OUT = """
import torch
from transformers import get_cosine_schedule_with_warmup


def make_schedule(settings, opt, n_items):
    per_epoch = (n_items // settings.batch_size) // {divisor}
    return get_cosine_schedule_with_warmup(
        opt,
        num_warmup_steps=settings.warm_epochs * per_epoch,
        num_training_steps=settings.epochs * per_epoch,
    )


def run(settings, net, items, batches):
    opt = torch.optim.AdamW(net.parameters(), lr=3e-4)
    schedule = make_schedule(settings, opt, len(items))
    seen = 0
    for epoch in range(settings.epochs):
        for x, y in batches:
            seen += 1
            loss = torch.nn.functional.mse_loss(net(x), y) / settings.accum
            loss.backward()
            if seen % settings.accum == 0:
                opt.step()
                opt.zero_grad()
            schedule.step()
"""


def shared_out(divisor: str) -> str:
    return _SHARED_OUT.replace("{divisor}", divisor)


def test_horizon_divided_by_the_world_size_stepped_every_batch_is_silent() -> None:
    assert "LRD017" not in codes(shared_out("settings.world_size"))


def test_horizon_divided_by_the_process_count_call_is_silent() -> None:
    src = shared_out("torch.distributed.get_world_size()")
    assert "LRD017" not in codes(src)


def test_horizon_divided_by_the_gpu_count_is_silent() -> None:
    assert "LRD017" not in codes(shared_out("settings.n_gpu"))


# -- still reported: a horizon counted in updates, stepped on every micro-batch ------------


def test_horizon_divided_by_the_accumulation_count_is_still_lrd017() -> None:
    # counted in updates: stepped per loader batch it runs accum times too fast
    assert "LRD017" in codes(shared_out("settings.accum"))


def test_horizon_divided_by_world_size_and_accumulation_is_still_lrd017() -> None:
    assert "LRD017" in codes(shared_out("(settings.world_size * settings.accum)"))


# the count of samples handed to the builder is bound twice in the caller (the dataset's
# length, or the weighted sampler's draw count), so the walk cannot follow it to a `len()`
_TWICE_BOUND = """
import torch
from transformers import get_cosine_schedule_with_warmup


def make_schedule(settings, opt, n_items):
    return get_cosine_schedule_with_warmup(
        opt,
        num_warmup_steps=settings.warm_epochs * (n_items // {divisor}) // settings.world_size,
        num_training_steps=settings.epochs * (n_items // {divisor}) // settings.world_size,
    )


def run(settings, net, items, batches, weighted):
    opt = torch.optim.AdamW(net.parameters(), lr=3e-4)
    n_items = len(items)
    if weighted:
        n_items = batches.sampler.num_samples
{extra}
    schedule = make_schedule(settings, opt, n_items)
    seen = 0
    for epoch in range(settings.epochs):
        for x, y in batches:
            seen += 1
            loss = torch.nn.functional.mse_loss(net(x), y) / settings.accum
            loss.backward()
            if seen % settings.accum == 0:
                opt.step()
                opt.zero_grad()
            schedule.step()
"""


def test_samples_bound_twice_divided_by_the_batch_size_stepped_every_batch_is_silent() -> None:
    src = _TWICE_BOUND.replace("{divisor}", "settings.batch_size").replace("{extra}", "")
    assert "LRD017" not in codes(src)


def test_samples_divided_by_a_whole_update_batch_is_still_lrd017() -> None:
    # the batch of one update (loader batch times accumulation): the horizon counts updates
    src = _TWICE_BOUND.replace("{divisor}", "(settings.batch_size * settings.accum)") \
        .replace("{extra}", "")
    assert "LRD017" in codes(src)
