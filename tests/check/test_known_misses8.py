"""Known misses and false alarms of `lrdoctor check` on real code (issue 7, fixes8), each fixed
by what the code means, with controls that must still be reported (or stay silent).

Programs written for these tests; no third-party code."""

from __future__ import annotations

import pytest

from .helpers import codes, findings, messages

# 1. An LR range test ("LR finder") is a short throwaway run that sweeps the LR upwards to read a
# loss curve off it. A script that offers one behind a flag builds the finder's scheduler on
# that branch and its training schedulers on the other; the checkpoint of the training run
# owes nothing to the finder's scheduler, and nobody resumes a sweep.

FINDER = """
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--{flag}", action="store_true")
parser.add_argument("--resume", default="")
args = parser.parse_args()

model = torch.nn.Linear(8, 1)
loader = torch.utils.data.DataLoader(torch.randn(256, 8), batch_size=16)
optimizer = torch.optim.SGD(model.parameters(), lr=1e-5, momentum=0.9)
{build}
if args.resume:
    state = torch.load(args.resume)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    {restore}
for epoch in range(20):
    for step, x in enumerate(loader):
        optimizer.zero_grad()
        model(x).pow(2).mean().backward()
        optimizer.step()
        {per_batch}
    {per_epoch}
    torch.save({{"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                {saved}}}, "last.pt")
"""


def finder_program(flag: str = "lr_finder", build: str = "", restore: str = "pass",
                   per_batch: str = "pass", per_epoch: str = "pass", saved: str = "") -> str:
    return FINDER.format(flag=flag, build=build, restore=restore, per_batch=per_batch,
                         per_epoch=per_epoch, saved=saved)


SWEEP_ELSE = """
if not args.{flag}:
    decay = torch.optim.lr_scheduler.StepLR(optimizer, step_size=5)
else:
    sweep = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda it: (1e-1 / 1e-5) ** (it / 300))
"""
STEPS_ELSE = ("if args.{flag}:\n            sweep.step()",
              "if not args.{flag}:\n        decay.step()")


@pytest.mark.parametrize("flag", ["lr_finder", "find_lr", "lr_range_test", "lrfinder"])
def test_finder_scheduler_missing_from_a_checkpoint_that_holds_the_training_one_is_silent(flag):
    per_batch, per_epoch = (s.format(flag=flag) for s in STEPS_ELSE)
    src = finder_program(flag, SWEEP_ELSE.format(flag=flag), "decay.load_state_dict(state['decay'])",
                         per_batch, per_epoch, '"decay": decay.state_dict()')
    assert "LRD007" not in codes(src)


def test_training_scheduler_missing_beside_a_finder_is_still_reported_and_named():
    per_batch, per_epoch = (s.format(flag="lr_finder") for s in STEPS_ELSE)
    src = finder_program("lr_finder", SWEEP_ELSE.format(flag="lr_finder"), "pass",
                         per_batch, per_epoch, "")
    assert "LRD007" in codes(src)
    assert not any("`sweep`" in m for m in messages(src))
    assert any("`decay`" in m for m in messages(src))


def test_finder_chosen_by_a_mode_string_is_silent():
    build = """
if args.mode == "lr_find":
    sweep = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=1.05)
    sweep_on = True
"""
    src = finder_program("mode", build, per_batch="sweep.step()").replace(
        'parser.add_argument("--mode", action="store_true")',
        'parser.add_argument("--mode", default="train")')
    # ExponentialLR is never judged (it scales the LR it finds); a LambdaLR sweep is
    src = src.replace("ExponentialLR(optimizer, gamma=1.05)",
                      "LambdaLR(optimizer, lambda it: 1.05 ** it)")
    assert "LRD007" not in codes(src)


def test_scheduler_named_for_the_finder_is_silent():
    build = ("finder_scheduler = torch.optim.lr_scheduler.LambdaLR(\n"
             "    optimizer, lambda it: (1e-1 / 1e-5) ** (it / 300))")
    src = finder_program("sweep", build, per_batch="finder_scheduler.step()")
    assert "LRD007" not in codes(src)


@pytest.mark.parametrize("test", ["args.cosine", "not args.plain"])
def test_scheduler_built_under_another_flag_and_left_out_is_still_reported(test):
    build = f"""
if {test}:
    decay = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda it: 0.5 ** (it // 100))
"""
    src = finder_program("cosine", build, per_batch=f"if {test}:\n            decay.step()")
    assert "LRD007" in codes(src)


def test_finder_branch_not_taken_builds_the_training_scheduler_which_is_reported():
    # `if not args.lr_finder:` taken: this is the training run's scheduler
    build = """
if not args.lr_finder:
    decay = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda it: 0.5 ** (it // 100))
"""
    src = finder_program("lr_finder", build,
                         per_batch="if not args.lr_finder:\n            decay.step()")
    assert "LRD007" in codes(src)


# 2. ReduceLROnPlateau under DDP fed a running training loss that the loop all-reduces only to
# print it, and then sets back to zero: the reduced value never reaches the plateau, which
# reads what this rank added since the last log.

DDP_HEAD = """
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from shards import build_loaders


def average(value):
    value = torch.tensor(value)
    dist.all_reduce(value)
    return value / dist.get_world_size()


def train(model, optimizer, x, y):
    optimizer.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()


def main(args):
    dist.init_process_group("nccl")
    model = DistributedDataParallel(torch.nn.Linear(8, 1).cuda())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.5)
    train_loader = build_loaders(args, distributed=True)
    running = 0
    for epoch in range(args.epochs):
        {set_epoch}
        for i, (x, y) in enumerate(train_loader):
            it = epoch * len(train_loader) + i
{body}
"""

LOG_THEN_RESET = """
            if it > 0 and it % args.every == 0:
                plateau.step(running)
            running += train(model, optimizer, x, y)
            if i % args.log_every == 0:
                running = average(running).item()
                print(f"it {it}: loss {running / args.log_every:.4f}")
                running = 0
"""


def ddp_program(body: str = LOG_THEN_RESET,
                set_epoch: str = "train_loader.sampler.set_epoch(epoch)") -> str:
    return DDP_HEAD.format(body=body, set_epoch=set_epoch)


def test_plateau_fed_a_running_loss_reduced_only_to_log_then_reset_is_reported():
    src = ddp_program()
    assert [line for code, line in findings(src) if code == "LRD013"] == [35]
    [message] = [m for m in messages(src) if "reduced across ranks at line 38" in m]
    assert "set back to a fresh count before this step reads it" in message


def test_reset_to_an_empty_list_counts_too():
    body = """
            if it > 0 and it % args.every == 0:
                plateau.step(sum(losses) / max(len(losses), 1))
            losses.append(train(model, optimizer, x, y))
            if i % args.log_every == 0:
                dist.all_reduce(torch.tensor(losses))
                print(losses)
                losses = []
"""
    src = ddp_program(body).replace("    running = 0\n", "    losses = []\n")
    assert "LRD013" in codes(src)


def test_plateau_stepped_with_the_reduced_value_before_the_reset_is_silent():
    body = """
            running += train(model, optimizer, x, y)
            if i % args.log_every == 0:
                running = average(running).item()
                plateau.step(running)
                running = 0
"""
    assert "LRD013" not in codes(ddp_program(body))


def test_plateau_fed_the_reduced_value_that_is_kept_is_silent():
    body = """
            running += train(model, optimizer, x, y)
            if i % args.log_every == 0:
                running = average(running).item()
                print(running)
        plateau.step(running)
        running = 0
"""
    assert "LRD013" not in codes(ddp_program(body))


def test_plateau_fed_a_metric_computed_on_rank_zero_and_broadcast_is_silent():
    body = """
            running += train(model, optimizer, x, y)
        metric = torch.tensor([running])
        dist.broadcast(metric, src=0)
        plateau.step(metric.item())
        running = 0
"""
    assert "LRD013" not in codes(ddp_program(body))


def test_loader_whose_sampler_takes_set_epoch_is_sharded():
    # a loader made by a project function: `set_epoch` on its sampler is the reshuffle a
    # DistributedSampler needs, so each rank's running loss is its own shard's
    body = """
            running += train(model, optimizer, x, y)
        plateau.step(running)
        running = 0
"""
    assert "LRD013" in codes(ddp_program(body))


def test_loader_from_a_project_function_without_set_epoch_is_not_judged():
    body = """
            running += train(model, optimizer, x, y)
        plateau.step(running)
        running = 0
"""
    assert "LRD013" not in codes(ddp_program(body, set_epoch="pass"))


def test_another_value_reduced_through_torch_tensor_does_not_reduce_the_metric():
    # following the metric back reaches `torch` (the model is built with it); a reduction
    # whose argument mentions `torch` (`torch.tensor(correct)`) is not a reduction of the metric
    body = """
            running += train(model, optimizer, x, y)
        correct = 0
        dist.all_reduce(torch.tensor(correct))
        plateau.step(running)
        running = 0
"""
    assert "LRD013" in codes(ddp_program(body))


def test_without_a_process_group_the_reset_shape_is_silent():
    src = ddp_program().replace('dist.init_process_group("nccl")', "pass").replace(
        "DistributedDataParallel(torch.nn.Linear(8, 1).cuda())", "torch.nn.Linear(8, 1)")
    assert "LRD013" not in codes(src)


# 3. The same plateau fed the mean training loss of a loader that has no DistributedSampler:
# every rank goes over the whole set, in the order its own RNG shuffles it. Processes started
# by `mp.spawn` are fresh interpreters: a seed set in the function that spawns them stays in
# the parent, so the orders (and the losses) differ from rank to rank.

SPAWNED = """
import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, TensorDataset


def train_epoch(loader, model, optimizer, plateau):
    losses = []
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    plateau.step(np.mean(losses))


def worker(gpu, world):
    dist.init_process_group("nccl", rank=gpu, world_size=world)
    {worker_seed}
    data = TensorDataset(torch.randn(512, 8), torch.randn(512, 1))
    loader = DataLoader(data, batch_size=32, {loader_kwargs})
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 1).cuda(gpu))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=3)
    for epoch in range(100):
        train_epoch(loader, model, optimizer, plateau)


def main():
    torch.manual_seed(24)
    {launch}


if __name__ == "__main__":
    main()
"""


def spawned(worker_seed: str = "pass", loader_kwargs: str = "shuffle=True",
            launch: str = "mp.spawn(worker, nprocs=4, args=(4,))") -> str:
    return SPAWNED.format(worker_seed=worker_seed, loader_kwargs=loader_kwargs, launch=launch)


def test_spawned_ranks_each_shuffling_the_whole_set_feed_their_own_plateaus():
    src = spawned()
    assert [line for code, line in findings(src) if code == "LRD013"] == [17]
    assert any("each process shuffles in its own order" in m for m in messages(src))


@pytest.mark.parametrize("seed", ["torch.manual_seed(24)", "set_seed(24)",
                                  "pl.seed_everything(24)"])
def test_workers_seeded_alike_shuffle_alike_and_stay_silent(seed):
    assert "LRD013" not in codes(spawned(worker_seed=seed))


def test_loader_that_does_not_shuffle_is_silent():
    assert "LRD013" not in codes(spawned(loader_kwargs="shuffle=False"))


def test_script_not_spawning_its_workers_is_not_judged():
    # launched by torchrun: each process runs the script whole; whether they share a seed is
    # the launcher's business, not the file's
    src = spawned(launch="worker(int(os.environ['LOCAL_RANK']), 4)").replace(
        "import numpy as np", "import os\nimport numpy as np")
    assert "LRD013" not in codes(src)


def test_losses_collected_in_a_list_over_a_sharded_loader_are_per_rank():
    src = spawned(loader_kwargs="sampler=DistributedSampler(data)").replace(
        "from torch.utils.data import DataLoader, TensorDataset",
        "from torch.utils.data import DataLoader, TensorDataset\n"
        "from torch.utils.data.distributed import DistributedSampler")
    assert "LRD013" in codes(src)


def test_losses_collected_in_a_list_and_gathered_are_silent():
    src = spawned(loader_kwargs="sampler=DistributedSampler(data)").replace(
        "from torch.utils.data import DataLoader, TensorDataset",
        "from torch.utils.data import DataLoader, TensorDataset\n"
        "from torch.utils.data.distributed import DistributedSampler").replace(
        "    plateau.step(np.mean(losses))",
        "    mean = torch.tensor(np.mean(losses))\n"
        "    dist.all_reduce(mean)\n"
        "    plateau.step(mean.item() / dist.get_world_size())")
    assert "LRD013" not in codes(src)


def test_validation_pass_over_a_shuffled_whole_set_is_silent():
    # the model does not change during an evaluation pass: every rank's mean over the whole set
    # is the same whatever the order
    src = spawned().replace("""        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())""", """        with torch.no_grad():
            losses.append(torch.nn.functional.mse_loss(model(x), y).item())""")
    assert "optimizer.step()" not in src.split("def worker")[0]
    assert "LRD013" not in codes(src)
