"""LRD003 in the shapes real training code writes: a schedule counted in batches
(OneCycleLR over epochs * len(loader), CyclicLR, a Hugging Face warm-up to
num_training_steps = len(loader) * epochs) stepped once per epoch, through a helper, an
epoch-end hook, a callback or a trainer method, is reported; a schedule sized in epochs
(OneCycleLR(epochs=E, steps_per_epoch=1), total_steps=epochs, num_training_steps=num_epochs,
warm-ups in epochs, timm's t_initial=epochs) stepped per epoch, or a batch-sized one stepped
per batch inside a helper, is silent.

A builder's parameter is read by what its caller fills it with, as an assignment is by its
value: `make_scheduler(opt, 2, args.epochs)` into a parameter named `num_training_steps` sizes
the schedule in epochs, `build(opt, n_epochs * len(loader))` into one named `epochs` in
batches."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

HEAD = '''
import argparse
import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.optim.lr_scheduler import OneCycleLR, CosineAnnealingLR, CyclicLR, LambdaLR
data = TensorDataset(torch.randn(512, 16), torch.randn(512, 1))
loader = DataLoader(data, batch_size=16, shuffle=True)
model = torch.nn.Linear(16, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
def train_batches():
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
'''

SILENT = {
    "onecycle_spe1": """
epochs = 30
scheduler = OneCycleLR(optimizer, max_lr=0.1, epochs=epochs, steps_per_epoch=1)
for epoch in range(epochs):
    train_batches()
    scheduler.step()
""",
    "onecycle_total_epochs": """
parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=40)
args = parser.parse_args()
scheduler = OneCycleLR(optimizer, max_lr=0.1, total_steps=args.epochs)
for epoch in range(args.epochs):
    train_batches()
    scheduler.step()
""",
    "onecycle_total_neutral": """
cfg = {"num_epochs": 50, "lr": 0.1}
n = cfg["num_epochs"]
scheduler = OneCycleLR(optimizer, max_lr=cfg["lr"], total_steps=n, pct_start=0.2)
for epoch in range(n):
    train_batches()
    scheduler.step()
""",
    "hf_cosine_epochs": """
from transformers import get_cosine_schedule_with_warmup
warmup_epochs, num_epochs = 3, 60
scheduler = get_cosine_schedule_with_warmup(optimizer, num_warmup_steps=warmup_epochs, num_training_steps=num_epochs)
for epoch in range(num_epochs):
    train_batches()
    scheduler.step()
""",
    "hf_linear_positional": """
from transformers import get_linear_schedule_with_warmup
class Cfg:
    max_epochs = 20
    warmup_epochs = 2
cfg = Cfg()
scheduler = get_linear_schedule_with_warmup(optimizer, cfg.warmup_epochs, cfg.max_epochs)
for epoch in range(cfg.max_epochs):
    train_batches()
    scheduler.step()
""",
    "total_steps_is_epochs": """
from transformers import get_cosine_schedule_with_warmup
num_epochs = 100
total_steps = num_epochs  # the schedule advances once per epoch
scheduler = get_cosine_schedule_with_warmup(optimizer, num_warmup_steps=5, num_training_steps=total_steps)
for epoch in range(num_epochs):
    train_batches()
    scheduler.step()
""",
    "timm": """
from timm.scheduler import CosineLRScheduler
epochs = 100
scheduler = CosineLRScheduler(optimizer, t_initial=epochs, warmup_t=5, warmup_lr_init=1e-5)
for epoch in range(epochs):
    train_batches()
    scheduler.step(epoch + 1)
""",
    "helper_per_batch": """
def train_one_epoch(model, loader, optimizer, scheduler):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        scheduler.step()
epochs = 10
scheduler = OneCycleLR(optimizer, max_lr=0.1, epochs=epochs, steps_per_epoch=len(loader))
for epoch in range(epochs):
    train_one_epoch(model, loader, optimizer, scheduler)
""",
    "lambda_warmup_epochs": """
warmup_epochs, epochs = 5, 90
scheduler = LambdaLR(optimizer, lambda e: min(1.0, (e + 1) / warmup_epochs))
for epoch in range(epochs):
    train_batches()
    scheduler.step()
""",
    "cosine_tmax_epochs": """
def main(num_epochs=200):
    scheduler = CosineAnnealingLR(optimizer, T_max=num_epochs, eta_min=1e-6)
    for epoch in range(num_epochs):
        train_batches()
        scheduler.step()
main()
""",
    "onecycle_total_steps_kw_epochs": """
def build(optimizer, epochs):
    return OneCycleLR(optimizer, max_lr=0.05, total_steps=epochs, anneal_strategy="cos")
def fit(epochs=25):
    scheduler = build(optimizer, epochs)
    for epoch in range(epochs):
        train_batches()
        scheduler.step()
fit()
""",
    "cyclic_epochs": """
epochs = 60
scheduler = CyclicLR(optimizer, base_lr=1e-4, max_lr=1e-2, step_size_up=epochs // 6, cycle_momentum=True)
for epoch in range(epochs):
    train_batches()
    scheduler.step()
""",
    "trainer_helper_per_batch": """
class Trainer:
    def __init__(self, model, loader, epochs):
        self.model, self.loader, self.epochs = model, loader, epochs
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        self.scheduler = OneCycleLR(self.optimizer, max_lr=1e-3, epochs=epochs, steps_per_epoch=len(loader))
    def _step(self, loss):
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.scheduler.step()
    def train_epoch(self):
        for x, y in self.loader:
            self._step(torch.nn.functional.mse_loss(self.model(x), y))
    def fit(self):
        for epoch in range(self.epochs):
            self.train_epoch()
Trainer(model, loader, 5).fit()
""",
    "hf_num_training_steps_epochs_attr": """
from transformers import get_linear_schedule_with_warmup
parser = argparse.ArgumentParser()
parser.add_argument("--n_epochs", type=int, default=10)
parser.add_argument("--warmup", type=int, default=1, help="warm-up length in epochs")
args = parser.parse_args()
scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=args.warmup, num_training_steps=args.n_epochs)
for epoch in range(args.n_epochs):
    train_batches()
    scheduler.step()
""",
    "param_named_steps": """
from transformers import get_cosine_schedule_with_warmup
def make_scheduler(optimizer, num_warmup_steps, num_training_steps):
    return get_cosine_schedule_with_warmup(optimizer, num_warmup_steps, num_training_steps)
parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=30)
args = parser.parse_args()
scheduler = make_scheduler(optimizer, 2, args.epochs)
for epoch in range(args.epochs):
    train_batches()
    scheduler.step()
""",
    "iter_loop": """
total_iters = 10000
scheduler = OneCycleLR(optimizer, max_lr=0.1, total_steps=total_iters)
it = iter(loader)
for step in range(total_iters):
    try:
        x, y = next(it)
    except StopIteration:
        it = iter(loader)
        x, y = next(it)
    optimizer.zero_grad()
    torch.nn.functional.mse_loss(model(x), y).backward()
    optimizer.step()
    scheduler.step()
""",
    "iter_loop_epochs_named": """
max_steps = 5000
scheduler = OneCycleLR(optimizer, max_lr=0.1, total_steps=max_steps)
step = 0
def cycle(dl):
    while True:
        for b in dl:
            yield b
data_iter = cycle(loader)
while step < max_steps:
    x, y = next(data_iter)
    optimizer.zero_grad()
    torch.nn.functional.mse_loss(model(x), y).backward()
    optimizer.step()
    scheduler.step()
    step += 1
""",
    "hf_epochs_warmup_ratio": """
from transformers import get_linear_schedule_with_warmup
num_train_epochs = 40
scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=int(0.1 * num_train_epochs), num_training_steps=num_train_epochs)
for epoch in range(num_train_epochs):
    train_batches()
    scheduler.step()
""",
    "onecycle_builder_total_steps": """
def build_scheduler(optimizer, total_steps, max_lr=0.1):
    return OneCycleLR(optimizer, max_lr=max_lr, total_steps=total_steps, pct_start=0.3)
parser = argparse.ArgumentParser()
parser.add_argument("--num_epochs", type=int, default=24)
args = parser.parse_args()
scheduler = build_scheduler(optimizer, args.num_epochs)
for epoch in range(args.num_epochs):
    train_batches()
    scheduler.step()
""",
}

REPORTED = {
    "onecycle_helper": """
def adjust_learning_rate(scheduler):
    scheduler.step()
epochs = 20
scheduler = OneCycleLR(optimizer, max_lr=0.1, total_steps=epochs * len(loader))
for epoch in range(epochs):
    train_batches()
    adjust_learning_rate(scheduler)
""",
    "hf_epoch_end_hook": """
from transformers import get_linear_schedule_with_warmup
class Trainer:
    def __init__(self, epochs):
        self.epochs = epochs
        self.scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=100, num_training_steps=len(loader) * epochs)
    def on_epoch_end(self, epoch):
        self.scheduler.step()
    def fit(self):
        for epoch in range(self.epochs):
            train_batches()
            self.on_epoch_end(epoch)
Trainer(10).fit()
""",
    "cyclic_per_epoch": """
epochs = 50
scheduler = CyclicLR(optimizer, base_lr=1e-4, max_lr=1e-2, step_size_up=4 * len(loader))
for epoch in range(epochs):
    train_batches()
    scheduler.step()
""",
    "onecycle_callback": """
class LRCallback:
    def __init__(self, scheduler):
        self.scheduler = scheduler
    def on_epoch_end(self):
        self.scheduler.step()
epochs = 15
scheduler = OneCycleLR(optimizer, max_lr=0.1, total_steps=epochs * len(loader))
callbacks = [LRCallback(scheduler)]
for epoch in range(epochs):
    train_batches()
    for cb in callbacks:
        cb.on_epoch_end()
""",
    "trainer_after_loop": """
class Trainer:
    def __init__(self, loader, epochs):
        self.loader, self.epochs = loader, epochs
        self.scheduler = OneCycleLR(optimizer, max_lr=0.1, epochs=epochs, steps_per_epoch=len(loader))
    def train_epoch(self):
        for x, y in self.loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        self.scheduler.step()
    def fit(self):
        for epoch in range(self.epochs):
            self.train_epoch()
Trainer(loader, 8).fit()
""",
    "cyclic_default": """
epochs = 30
scheduler = CyclicLR(optimizer, base_lr=1e-4, max_lr=1e-2)
for epoch in range(epochs):
    train_batches()
    val = 0.0
    scheduler.step()
""",
    "hf_total_named": """
from transformers import get_cosine_schedule_with_warmup
epochs = 5
num_training_steps = epochs * len(loader)
scheduler = get_cosine_schedule_with_warmup(optimizer, int(0.1 * num_training_steps), num_training_steps)
def train(epoch):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
for epoch in range(epochs):
    train(epoch)
    scheduler.step()
""",
    "param_named_epochs_filled_steps": """
from transformers import get_cosine_schedule_with_warmup
def make_scheduler(optimizer, warmup_epochs, epochs):
    return get_cosine_schedule_with_warmup(optimizer, warmup_epochs, epochs)
n_epochs = 30
scheduler = make_scheduler(optimizer, 2, n_epochs * len(loader))
for epoch in range(n_epochs):
    train_batches()
    scheduler.step()
""",
    "onecycle_builder_epochs_param": """
def build_scheduler(optimizer, epochs, max_lr=0.1):
    return OneCycleLR(optimizer, max_lr=max_lr, total_steps=epochs, pct_start=0.3)
n_epochs = 24
scheduler = build_scheduler(optimizer, n_epochs * len(loader))
for epoch in range(n_epochs):
    train_batches()
    scheduler.step()
""",
}


@pytest.mark.parametrize("shape", sorted(SILENT))
def test_epoch_sized_or_per_batch_is_silent(shape: str) -> None:
    found = codes(HEAD + SILENT[shape])
    assert "LRD003" not in found and "LRD002" not in found


@pytest.mark.parametrize("shape", sorted(REPORTED))
def test_batch_sized_stepped_per_epoch_is_reported(shape: str) -> None:
    assert "LRD003" in codes(HEAD + REPORTED[shape])


LIGHTNING_SILENT = {
    "manual_opt": """
import torch
import pytorch_lightning as pl
from torch.optim.lr_scheduler import OneCycleLR
class M(pl.LightningModule):
    def __init__(self, steps_per_epoch, epochs=10):
        super().__init__()
        self.automatic_optimization = False
        self.net = torch.nn.Linear(4, 1)
        self.steps_per_epoch, self.epochs = steps_per_epoch, epochs
    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        sch = self.lr_schedulers()
        loss = self.net(batch[0]).pow(2).mean()
        opt.zero_grad()
        self.manual_backward(loss)
        opt.step()
        sch.step()
        return loss
    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=1e-3)
        sched = OneCycleLR(opt, max_lr=1e-3, epochs=self.epochs, steps_per_epoch=self.steps_per_epoch)
        return [opt], [sched]
""",
    "interval_var": """
import torch
import pytorch_lightning as pl
from torch.optim.lr_scheduler import OneCycleLR
class M(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 1)
    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=1e-3)
        sched = OneCycleLR(opt, max_lr=1e-3, total_steps=self.trainer.estimated_stepping_batches)
        config = {"scheduler": sched}
        config["interval"] = "step"
        return {"optimizer": opt, "lr_scheduler": config}
""",
    "interval_dict_call": """
import torch
import pytorch_lightning as pl
from transformers import get_cosine_schedule_with_warmup
class M(pl.LightningModule):
    def __init__(self, interval="step"):
        super().__init__()
        self.net = torch.nn.Linear(4, 1)
        self.interval = interval
    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=1e-3)
        total = self.trainer.estimated_stepping_batches
        sched = get_cosine_schedule_with_warmup(opt, int(0.05 * total), total)
        return [opt], [dict(scheduler=sched, interval=self.interval, frequency=1)]
""",
    "epochs_hf": """
import torch
import pytorch_lightning as pl
from transformers import get_cosine_schedule_with_warmup
class M(pl.LightningModule):
    def __init__(self, warmup_epochs=2):
        super().__init__()
        self.net = torch.nn.Linear(4, 1)
        self.warmup_epochs = warmup_epochs
    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=1e-3)
        sched = get_cosine_schedule_with_warmup(opt, self.warmup_epochs, self.trainer.max_epochs)
        return [opt], [sched]
""",
    "helper_dict": """
import torch
import pytorch_lightning as pl
from torch.optim.lr_scheduler import OneCycleLR
def scheduler_config(sched, interval="step"):
    return {"scheduler": sched, "interval": interval, "frequency": 1}
class M(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 1)
    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=1e-3)
        sched = OneCycleLR(opt, max_lr=1e-3, total_steps=self.trainer.estimated_stepping_batches)
        return [opt], [scheduler_config(sched)]
""",
    "hparams_interval": """
import torch
import pytorch_lightning as pl
from transformers import get_linear_schedule_with_warmup
class M(pl.LightningModule):
    def __init__(self, lr=1e-3, warmup_steps=500, scheduler_interval="step"):
        super().__init__()
        self.save_hyperparameters()
        self.net = torch.nn.Linear(4, 1)
    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=self.hparams.lr)
        sched = get_linear_schedule_with_warmup(opt, self.hparams.warmup_steps, self.trainer.estimated_stepping_batches)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": self.hparams.scheduler_interval}}
""",
    "epochs_onecycle": """
import torch
import pytorch_lightning as pl
from torch.optim.lr_scheduler import OneCycleLR
class M(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 1)
    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=1e-3)
        sched = OneCycleLR(opt, max_lr=1e-3, total_steps=self.trainer.max_epochs)
        return [opt], [sched]
""",
    "list_of_dict": """
import torch
import pytorch_lightning as pl
from torch.optim.lr_scheduler import CyclicLR
class M(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 1)
    def configure_optimizers(self):
        opt = torch.optim.SGD(self.parameters(), lr=1e-3, momentum=0.9)
        sched = CyclicLR(opt, base_lr=1e-4, max_lr=1e-2, step_size_up=2000)
        schedulers = [{"scheduler": sched, "name": "cyclic", "interval": "step", "frequency": 1}]
        return [opt], schedulers
""",
}

LIGHTNING_REPORTED = """
import torch
import pytorch_lightning as pl
from torch.optim.lr_scheduler import OneCycleLR
class M(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 1)
    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=1e-3)
        sched = OneCycleLR(opt, max_lr=1e-3, total_steps=self.trainer.estimated_stepping_batches)
        return {"optimizer": opt, "lr_scheduler": sched}
"""


@pytest.mark.parametrize("shape", sorted(LIGHTNING_SILENT))
def test_lightning_step_interval_or_epoch_sized_is_silent(shape: str) -> None:
    found = codes(LIGHTNING_SILENT[shape])
    assert "LRD003" not in found and "LRD002" not in found


def test_lightning_batch_sized_without_interval_is_reported() -> None:
    assert "LRD003" in codes(LIGHTNING_REPORTED)


# batch loops real code writes without iterating a DataLoader by name: the step inside is per
# batch, whatever the loop looks like
PER_BATCH_LOOPS = {
    "prefetcher_while": """
class DataPrefetcher:
    def __init__(self, loader):
        self.it = iter(loader)
    def next(self):
        try:
            return next(self.it)
        except StopIteration:
            return None
epochs = 10
scheduler = OneCycleLR(optimizer, max_lr=0.1, epochs=epochs, steps_per_epoch=len(loader))
for epoch in range(epochs):
    prefetcher = DataPrefetcher(loader)
    batch = prefetcher.next()
    while batch is not None:
        x, y = batch
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        scheduler.step()
        batch = prefetcher.next()
""",
    "range_len_next": """
epochs = 10
steps_per_epoch = len(loader)
scheduler = OneCycleLR(optimizer, max_lr=0.1, epochs=epochs, steps_per_epoch=steps_per_epoch)
for epoch in range(epochs):
    it = iter(loader)
    for i in range(steps_per_epoch):
        x, y = next(it)
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        scheduler.step()
""",
    "log_every": """
class MetricLogger:
    def log_every(self, iterable, print_freq, header=None):
        for i, obj in enumerate(iterable):
            yield obj
            if i % print_freq == 0:
                print(header, i)
def train_one_epoch(model, data_loader, optimizer, lr_scheduler, epoch):
    metric_logger = MetricLogger()
    for x, y in metric_logger.log_every(data_loader, 10, f"Epoch {epoch}"):
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        lr_scheduler.step()
epochs = 10
lr_scheduler = OneCycleLR(optimizer, max_lr=0.1, epochs=epochs, steps_per_epoch=len(loader))
for epoch in range(epochs):
    train_one_epoch(model, loader, optimizer, lr_scheduler, epoch)
""",
    "manual_slices": """
X, Y = torch.randn(1024, 16), torch.randn(1024, 1)
batch_size = 32
epochs = 20
scheduler = OneCycleLR(optimizer, max_lr=0.1, epochs=epochs, steps_per_epoch=len(X) // batch_size)
for epoch in range(epochs):
    perm = torch.randperm(len(X))
    for i in range(0, len(X), batch_size):
        idx = perm[i:i + batch_size]
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(X[idx]), Y[idx]).backward()
        optimizer.step()
        scheduler.step()
""",
    "pbar_zip": """
from tqdm import tqdm
epochs = 10
unlabeled = DataLoader(data, batch_size=16)
scheduler = OneCycleLR(optimizer, max_lr=0.1, epochs=epochs, steps_per_epoch=min(len(loader), len(unlabeled)))
for epoch in range(epochs):
    pbar = tqdm(zip(loader, unlabeled), total=min(len(loader), len(unlabeled)))
    for (x, y), (u, _) in pbar:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        scheduler.step()
""",
    "iteration_based_epoch_word": """
num_iters = 20000
scheduler = OneCycleLR(optimizer, max_lr=0.1, total_steps=num_iters)
loader_iter = iter(loader)
for epoch in range(num_iters):
    try:
        x, y = next(loader_iter)
    except StopIteration:
        loader_iter = iter(loader)
        x, y = next(loader_iter)
    optimizer.zero_grad()
    torch.nn.functional.mse_loss(model(x), y).backward()
    optimizer.step()
    scheduler.step()
""",
    "dataset_batches": """
class Batcher:
    def __init__(self, X, Y, bs):
        self.X, self.Y, self.bs = X, Y, bs
    def __len__(self):
        return (len(self.X) + self.bs - 1) // self.bs
    def __iter__(self):
        for i in range(0, len(self.X), self.bs):
            yield self.X[i:i + self.bs], self.Y[i:i + self.bs]
train_batches_ = Batcher(torch.randn(1024, 16), torch.randn(1024, 1), 32)
epochs = 10
scheduler = OneCycleLR(optimizer, max_lr=0.1, epochs=epochs, steps_per_epoch=len(train_batches_))
for epoch in range(epochs):
    for x, y in train_batches_:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        scheduler.step()
""",
    "gradient_accum_epoch_end": """
from transformers import get_linear_schedule_with_warmup
accum = 4
epochs = 3
scheduler = get_linear_schedule_with_warmup(optimizer, 10, epochs * len(loader) // accum)
for epoch in range(epochs):
    for i, (x, y) in enumerate(loader):
        loss = torch.nn.functional.mse_loss(model(x), y) / accum
        loss.backward()
        if (i + 1) % accum == 0 or i + 1 == len(loader):
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
""",
}


@pytest.mark.parametrize("shape", sorted(PER_BATCH_LOOPS))
def test_stepped_in_a_batch_loop_of_another_shape_is_silent(shape: str) -> None:
    found = codes(HEAD + PER_BATCH_LOOPS[shape])
    assert "LRD003" not in found and "LRD002" not in found
