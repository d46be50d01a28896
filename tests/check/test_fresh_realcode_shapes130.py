"""A ReduceLROnPlateau stepped on every rank of a distributed job with a value only the main
process computes (found probing the fresh-2026-12zzzb127 batch, rcnew127 in
bench/realcode/README.md: a translation trainer validates on rank 0 only, broadcasts the score
and steps the plateau on every rank; the same program without the broadcast was silent).

Programs written for these tests; no third-party code.

Without the broadcast, the name the step reads (``score``) holds a computed value on the main
process only; every other rank steps its plateau with the name's starting value (``score =
-inf``), the same every epoch, so those ranks cut their LR every ``patience + 1`` epochs while
the main process follows its metric: LRD013. Silent when something shares the value (a
broadcast, a reduction, a helper of another module it is handed to), when the other ranks
compute it too, when the name is a parameter, and in a script that sets up no process group.

Probing the same programs showed a false alarm of the per-rank-metric check: a validation loss
every rank computes over the whole (unsharded) validation loader, in a loop whose variables
reuse the training loop's names (``for x, y in train_loader: x, y = x.cuda(), y.cuda()`` and
later ``for x, y in val_loader:``), was reported as computed on each rank's shard: the
training loop's rebinding of ``x`` was taken for where the validation loop's ``x`` comes from.
A name read inside a loop (or comprehension) whose target binds it is now followed only
through the bindings inside that loop.
"""

from __future__ import annotations

from .helpers import codes, findings

RANK0_SCORE = '''
import os
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.optim.lr_scheduler import ReduceLROnPlateau
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def evaluate(model, loader):
    model.eval()
    with torch.no_grad():
        return sum(torch.nn.functional.mse_loss(model(x), y).item() for x, y in loader) / len(loader)


def main():
    dist.init_process_group("nccl")
    rank = int(os.environ["RANK"])
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    data = TensorDataset(torch.randn(256, 4), torch.randn(256, 1))
    train_loader = DataLoader(data, batch_size=16, sampler=DistributedSampler(data))
    val_loader = DataLoader(data, batch_size=16)
    model = DDP(torch.nn.Linear(4, 1).cuda(), device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-4)
    scheduler = ReduceLROnPlateau(optimizer, mode="max", factor=0.3, patience=2)
    INIT
    for epoch in range(20):
        train_loader.sampler.set_epoch(epoch)
        model.train()
        for x, y in train_loader:
            x, y = x.cuda(), y.cuda()
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        MEASURE
        SHARE
        STEP
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

TENSOR_INIT = 'score = torch.tensor(-1e9, device="cuda")'
TENSOR_MEASURE = '''if rank == 0:
            score = torch.tensor(-evaluate(model.module, val_loader), device="cuda")'''
TENSOR_STEP = "scheduler.step(score.item())"


def program(init: str = TENSOR_INIT, measure: str = TENSOR_MEASURE, share: str = "pass",
            step: str = TENSOR_STEP) -> str:
    return (RANK0_SCORE.replace("INIT", init).replace("MEASURE", measure)
            .replace("SHARE", share).replace("STEP", step))


def test_plateau_stepped_everywhere_with_a_score_only_rank_zero_computes_is_reported():
    assert findings(program()) == [("LRD013", 40)]


def test_the_same_score_broadcast_from_rank_zero_is_silent():
    assert codes(program(share="dist.broadcast(score, src=0)")) == []


def test_a_score_reduced_across_ranks_is_silent():
    assert codes(program(share="dist.all_reduce(score)")) == []


def test_a_float_score_under_get_rank_with_an_infinite_start_is_reported():
    source = program(init='score = -float("inf")',
                     measure='''if dist.get_rank() == 0:
            score = -evaluate(model.module, val_loader)''',
                     step="scheduler.step(score)")
    assert codes(source) == ["LRD013"]


def test_a_constant_given_to_the_other_ranks_in_the_else_branch_is_reported():
    source = program(init="score = None",
                     measure='''if rank == 0:
            score = -evaluate(model.module, val_loader)
        else:
            score = 0.0''',
                     step="scheduler.step(score)")
    assert codes(source) == ["LRD013"]


def test_a_score_left_none_on_the_other_ranks_is_left_alone():
    # the other ranks' step raises on None: a crash, not ranks training with different LRs
    source = program(init="score = None",
                     measure='''if rank == 0:
            score = -evaluate(model.module, val_loader)''',
                     step="scheduler.step(score)")
    assert codes(source) == []


def test_a_score_every_rank_computes_in_the_else_branch_is_silent():
    source = program(init="score = None",
                     measure='''if rank == 0:
            score = -evaluate(model.module, val_loader)
            print(score)
        else:
            score = -evaluate(model.module, val_loader)''',
                     step="scheduler.step(score)")
    assert codes(source) == []


def test_a_score_shared_through_an_object_list_is_silent():
    source = program(init="score = 0.0",
                     measure='''box = [None]
        if rank == 0:
            box[0] = -evaluate(model.module, val_loader)''',
                     share='''dist.broadcast_object_list(box, src=0)
        score = box[0]''',
                     step="scheduler.step(score)")
    assert codes(source) == []


def test_a_score_handed_to_a_helper_outside_the_guard_is_silent():
    source = program(share="score = share_from_main(score)").replace(
        "from torch.utils.data.distributed import DistributedSampler",
        "from torch.utils.data.distributed import DistributedSampler\nfrom utils import share_from_main")
    assert codes(source) == []


def test_a_score_every_rank_computes_on_the_whole_validation_set_is_silent():
    source = program(measure="score = torch.tensor(-evaluate(model.module, val_loader))")
    assert codes(source) == []


def test_the_step_itself_under_the_guard_is_reported_once_as_a_main_process_step():
    source = program(step='''if rank == 0:
            scheduler.step(score.item())''')
    assert codes(source) == ["LRD013"]


def test_a_main_process_flag_guard_is_reported():
    source = program(init="best = 0.0",
                     measure='''is_master = rank == 0
        if is_master:
            best = -evaluate(model.module, val_loader)''',
                     step="scheduler.step(best)")
    assert codes(source) == ["LRD013"]


def test_a_sum_accumulated_on_rank_zero_from_a_zero_start_is_reported():
    source = program(init="total = 0.0",
                     measure='''if rank == 0:
            for x, y in val_loader:
                total += torch.nn.functional.mse_loss(model.module(x.cuda()), y.cuda()).item()''',
                     step="scheduler.step(total)").replace('mode="max"', 'mode="min"')
    assert codes(source) == ["LRD013"]


def test_a_ratio_computed_on_every_rank_from_rank_zero_sums_is_left_alone():
    # the other ranks divide by a zero count and stop with an error: not a divergence of LRs
    source = program(init="total, count = 0.0, 0",
                     measure='''if rank == 0:
            for x, y in val_loader:
                total += torch.nn.functional.mse_loss(model.module(x.cuda()), y.cuda()).item()
                count += 1
        avg = total / count''',
                     step="scheduler.step(avg)").replace('mode="max"', 'mode="min"')
    assert codes(source) == []


def test_a_single_process_script_is_silent():
    source = program().replace('    dist.init_process_group("nccl")\n', "").replace(
        "    model = DDP(torch.nn.Linear(4, 1).cuda(), device_ids=[local_rank])",
        "    model = torch.nn.Linear(4, 1).cuda()").replace("model.module", "model").replace(
        "    dist.destroy_process_group()\n", "")
    assert codes(source) == []


def test_a_score_given_as_a_parameter_is_silent():
    source = '''
import os
import torch
import torch.distributed as dist
from torch.optim.lr_scheduler import ReduceLROnPlateau


def after_epoch(scheduler, score, rank):
    if rank == 0:
        print(score)
    scheduler.step(score)


def main():
    dist.init_process_group("nccl")
    rank = int(os.environ["RANK"])
    model = torch.nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = ReduceLROnPlateau(optimizer)
    for epoch in range(10):
        optimizer.zero_grad()
        model(torch.randn(2, 4)).sum().backward()
        optimizer.step()
        after_epoch(scheduler, 0.5, rank)
'''
    assert codes(source) == []


VAL_EVERY_RANK = TENSOR_MEASURE.replace(TENSOR_MEASURE, """total = 0.0
        model.eval()
        with torch.no_grad():
            for XY in VAL_LOADER:
                total += torch.nn.functional.mse_loss(model(x.cuda()), y.cuda()).item()""")


def validation_program(names: str = "x, y", loader: str = "val_loader") -> str:
    measure = VAL_EVERY_RANK.replace("XY", names).replace("VAL_LOADER", loader)
    if names != "x, y":
        measure = measure.replace("model(x.cuda()), y.cuda()", "model(vx.cuda()), vy.cuda()")
    return program(init="", measure=measure,
                   step="scheduler.step(total / len(VAL_LOADER))".replace("VAL_LOADER", loader))


def test_validation_on_the_whole_set_reusing_the_training_loop_names_is_silent():
    assert codes(validation_program()) == []


def test_validation_on_the_whole_set_with_names_of_its_own_is_silent():
    assert codes(validation_program("vx, vy")) == []


def test_validation_on_a_sharded_loader_reusing_the_training_loop_names_is_reported():
    source = validation_program(loader="shard_loader").replace(
        "    val_loader = DataLoader(data, batch_size=16)",
        "    shard_loader = DataLoader(data, batch_size=16, sampler=DistributedSampler(data))")
    assert codes(source) == ["LRD013"]


def test_the_training_loss_of_each_rank_shard_is_still_reported():
    source = program(init="", measure="""total = 0.0
        for x, y in train_loader:
            x, y = x.cuda(), y.cuda()
            with torch.no_grad():
                total += torch.nn.functional.mse_loss(model(x), y).item()""",
                     step="scheduler.step(total)").replace('mode="max"', 'mode="min"')
    assert codes(source) == ["LRD013"]


def test_a_comprehension_over_the_whole_set_reusing_the_names_is_silent():
    source = program(init="", measure="""model.eval()
        with torch.no_grad():
            total = sum(torch.nn.functional.mse_loss(model(x.cuda()), y.cuda()).item()
                        for x, y in val_loader)""",
                     step="scheduler.step(total)").replace('mode="max"', 'mode="min"')
    assert codes(source) == []
