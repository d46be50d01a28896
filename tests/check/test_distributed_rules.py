"""LRD013 in `lrdoctor check`: code that makes the ranks of a distributed job train with
different LRs, and the many correct distributed scripts that must stay silent."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes, findings, messages

DDP_SETUP = """
    import os
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    dist.init_process_group("nccl")
    rank = dist.get_rank()
    data = TensorDataset(torch.randn(1024, 16), torch.randn(1024, 1))
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=32, sampler=sampler)
    val_loader = DataLoader(data, batch_size=64, sampler=DistributedSampler(data, shuffle=False))
    model = DDP(torch.nn.Linear(16, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
"""

TRAIN_EPOCH = """
        sampler.set_epoch(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
"""


@pytest.mark.parametrize("guard", [
    "rank == 0", "dist.get_rank() == 0", "args.local_rank in (-1, 0)", "local_rank == 0",
    "accelerator.is_main_process", "trainer.is_global_zero", "int(os.environ['RANK']) == 0",
    "not rank", "epoch % 10 == 0 and master_process",
])
def test_scheduler_stepped_only_under_a_rank_guard_is_reported(guard):
    source = DDP_SETUP + """
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
    for epoch in range(90):
""" + TRAIN_EPOCH + f"""
        if {guard}:
            print(f"epoch {{epoch}}: lr {{scheduler.get_last_lr()}}")
            scheduler.step()
"""
    [(code, line)] = findings(source)
    assert code == "LRD013" and line == 30
    [message] = messages(source)
    assert f"runs only on the main process (`if {guard}:`)" in message
    assert "only the main process's LR follows the schedule" in message


def test_scheduler_stepped_in_the_else_of_a_non_main_test_is_reported():
    source = DDP_SETUP + """
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)
    for epoch in range(10):
""" + TRAIN_EPOCH + """
        if rank != 0:
            continue_training = True
        else:
            scheduler.step(loss.item())
"""
    assert "LRD013" in codes(source)  # (and LRD004: the training loss while a val loader exists)
    assert any("only the main process ever cuts its LR" in m for m in messages(source))


def test_scheduler_stepped_on_every_rank_with_logging_under_a_rank_guard_is_silent():
    source = DDP_SETUP + """
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
    for epoch in range(90):
""" + TRAIN_EPOCH + """
        scheduler.step()
        if rank == 0:
            print(f"epoch {epoch}: lr {scheduler.get_last_lr()}")
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "scheduler": scheduler.state_dict()}, "ckpt.pt")
"""
    assert codes(source) == []


def test_training_that_runs_on_the_main_process_only_is_silent():
    source = DDP_SETUP + """
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
    if rank == 0:
        for epoch in range(90):
            for x, y in loader:
                optimizer.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                optimizer.step()
            scheduler.step()
"""
    assert codes(source) == []


PLATEAU_ON_TRAIN_LOSS = """
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=2)
    for epoch in range(30):
        total = 0.0
""" + TRAIN_EPOCH + """
            total += loss.item()
        scheduler.step(total / len(loader))
"""


def test_plateau_fed_the_rank_own_training_loss_is_reported():
    assert ("LRD013", 30) in findings(DDP_SETUP + PLATEAU_ON_TRAIN_LOSS)
    message = messages(DDP_SETUP + PLATEAU_ON_TRAIN_LOSS)[-1]
    assert "stepped with `total / len(loader)`, computed by each rank on its own shard" in message


def test_the_same_loop_without_a_process_group_is_silent():
    single = DDP_SETUP.replace('dist.init_process_group("nccl")', "").replace(
        "DDP(torch.nn.Linear(16, 1))", "torch.nn.Linear(16, 1)")
    assert codes(single + PLATEAU_ON_TRAIN_LOSS) == []


def test_plateau_fed_a_validation_loss_evaluated_on_the_sharded_loader_is_reported():
    source = DDP_SETUP + """
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=2)

    def evaluate(model, loader):
        model.eval()
        total, count = 0.0, 0
        with torch.no_grad():
            for x, y in loader:
                total += torch.nn.functional.mse_loss(model(x), y, reduction="sum").item()
                count += len(x)
        return total / count

    for epoch in range(30):
""" + TRAIN_EPOCH + """
        val_loss = evaluate(model, val_loader)
        scheduler.step(val_loss)
"""
    assert codes(source) == ["LRD013"]
    assert "`evaluate()` evaluates the sharded `val_loader`" in messages(source)[0]


@pytest.mark.parametrize("reduction", [
    """
        t = torch.tensor(total / len(loader))
        dist.all_reduce(t)
        metric = t.item() / dist.get_world_size()
    """,
    """
        metric = reduce_mean(torch.tensor(total / len(loader)))
    """,
    """
        t = torch.tensor(total / len(loader))
        dist.broadcast(t, src=0)  # rank 0's value on every rank
        metric = t.item()
    """,
    """
        metric = accelerator.gather(torch.tensor(total / len(loader))).mean().item()
    """,
])
def test_plateau_fed_a_reduced_metric_is_silent(reduction):
    source = DDP_SETUP + """
    def reduce_mean(t):
        dist.all_reduce(t)
        return t / dist.get_world_size()

    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=2)
    for epoch in range(30):
        total = 0.0
""" + TRAIN_EPOCH + """
            total += loss.item()
""" + reduction + """
        scheduler.step(metric)
"""
    assert codes(source) == []


def test_plateau_fed_a_metric_of_a_function_defined_elsewhere_is_silent():
    source = DDP_SETUP + """
    from myproject.evaluation import evaluate  # may all-reduce: the file does not say

    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=2)
    for epoch in range(30):
""" + TRAIN_EPOCH + """
        scheduler.step(evaluate(model, val_loader))
"""
    assert codes(source) == []


def test_plateau_fed_a_loss_on_data_every_rank_sees_whole_is_silent():
    source = DDP_SETUP + """
    full_val = DataLoader(data, batch_size=64)  # no sampler: every rank sees all of it
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=2)
    for epoch in range(30):
""" + TRAIN_EPOCH + """
        val_loss = 0.0
        with torch.no_grad():
            for x, y in full_val:
                val_loss += torch.nn.functional.mse_loss(model(x), y).item()
        scheduler.step(val_loss)
"""
    assert codes(source) == []


def test_plateau_stepped_on_the_main_process_with_its_metric_is_reported_once():
    source = DDP_SETUP + """
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=2)
    for epoch in range(30):
        total = 0.0
""" + TRAIN_EPOCH + """
            total += loss.item()
        if dist.get_rank() == 0:
            scheduler.step(total)
"""
    assert codes(source) == ["LRD013"]
    assert "only the main process ever cuts its LR" in messages(source)[0]


LIGHTNING_MODULE = """
    import torch
    import lightning as L


    class Regressor(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.layer = torch.nn.Linear(4, 1)

        def training_step(self, batch, batch_idx):
            x, y = batch
            return torch.nn.functional.mse_loss(self.layer(x), y)

        def validation_step(self, batch, batch_idx):
            x, y = batch
            loss = torch.nn.functional.mse_loss(self.layer(x), y)
            self.log("val_loss", loss{log_args})

        def configure_optimizers(self):
            optimizer = torch.optim.Adam(self.parameters(), lr=1e-3)
            plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=3)
            return {{"optimizer": optimizer,
                    "lr_scheduler": {{"scheduler": plateau, "monitor": "val_loss"}}}}


    trainer = L.Trainer({trainer_args}, max_epochs=20)
    trainer.fit(Regressor())
"""


@pytest.mark.parametrize("trainer_args", ['accelerator="gpu", devices=4, strategy="ddp"',
                                          "devices=-1", 'strategy="fsdp"'])
def test_lightning_plateau_on_a_metric_logged_without_sync_dist_under_ddp_is_reported(trainer_args):
    source = LIGHTNING_MODULE.format(log_args="", trainer_args=trainer_args)
    assert findings(source) == [("LRD013", 18)]
    [message] = messages(source)
    assert "`val_loss` is logged without sync_dist=True and monitored by the ReduceLROnPlateau" \
        in message


@pytest.mark.parametrize("log_args, trainer_args", [
    (", sync_dist=True", 'devices=4, strategy="ddp"'),  # every rank logs the mean
    ("", "devices=1"),  # one process
    ("", "devices=args.devices"),  # the file does not say how many
    (", **log_options", 'strategy="ddp"'),  # may hold sync_dist
])
def test_lightning_plateau_on_a_synced_or_single_process_metric_is_silent(log_args, trainer_args):
    assert codes(LIGHTNING_MODULE.format(log_args=log_args, trainer_args=trainer_args)) == []


def test_lightning_plateau_on_a_torchmetrics_object_is_silent():
    # a torchmetrics Metric logged as an object is reduced across processes by Lightning
    source = LIGHTNING_MODULE.format(log_args="", trainer_args='strategy="ddp"').replace(
        'self.log("val_loss", loss)', 'self.val_mse(self.layer(x), y)\n'
        '            self.log("val_loss", self.val_mse)')
    assert codes(source) == []
