"""LRD001 (scheduler stepped before its optimizer) in the shapes real training code writes it:
the step at the top of the epoch loop before the batch loop, in a `for phase in ['train',
'val']` loop, at the start of a `train_one_epoch` helper or of a trainer's method, under a guard
that holds on the first pass, a LightningModule in manual optimization stepping in its epoch-
or batch-start hook; and the correct twins a careful reviewer would not report (guards provably
false on the first pass, an unknown threshold, the step after the updates)."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

HEADER = """import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.optim.lr_scheduler import StepLR, CosineAnnealingLR, MultiStepLR, OneCycleLR, LambdaLR
data = TensorDataset(torch.randn(512, 16), torch.randn(512, 1))
loader = DataLoader(data, batch_size=16)
model = torch.nn.Sequential(torch.nn.Linear(16, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
epochs = 20
freeze_epochs = 5
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = StepLR(optimizer, step_size=5, gamma=0.5)
"""

BUGS = {
    # the step at the top of the epoch loop, the LR logged after it
    "top_of_epoch_loop": """for epoch in range(epochs):
    scheduler.step()
    print("lr", scheduler.get_last_lr())
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
""",
    # in `for phase in ['train', 'val']`, under `if phase == 'train':` before the batch loop
    "phase_loop_train_branch": """dataloaders = {"train": loader, "val": loader}
for epoch in range(epochs):
    for phase in ["train", "val"]:
        if phase == "train":
            scheduler.step()
            model.train()
        else:
            model.eval()
        for x, y in dataloaders[phase]:
            optimizer.zero_grad()
            with torch.set_grad_enabled(phase == "train"):
                loss = torch.nn.functional.mse_loss(model(x), y)
                if phase == "train":
                    loss.backward()
                    optimizer.step()
""",
    # at the start of a train_one_epoch helper
    "train_one_epoch_start": """def train_one_epoch(model, loader, optimizer, scheduler, epoch):
    scheduler.step()
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()


for epoch in range(epochs):
    train_one_epoch(model, loader, optimizer, scheduler, epoch)
""",
    # at the start of a trainer's train_epoch method
    "trainer_method_start": """class Trainer:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        self.scheduler = MultiStepLR(self.optimizer, milestones=[10, 15], gamma=0.1)

    def train_epoch(self, epoch):
        self.scheduler.step()
        self.model.train()
        for x, y in self.loader:
            self.optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(self.model(x), y)
            loss.backward()
            self.optimizer.step()

    def fit(self):
        for epoch in range(epochs):
            self.train_epoch(epoch)


Trainer(model, loader).fit()
""",
    # a per-batch step at the top of the batch loop
    "top_of_batch_loop": """for epoch in range(epochs):
    for i, (x, y) in enumerate(loader):
        scheduler.step()
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
""",
    # through a trainer's adjust_lr() called at the top of the epoch
    "trainer_adjust_lr_helper": """class Trainer:
    def __init__(self, model, loader, args):
        self.model = model
        self.loader = loader
        self.args = args
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        self.scheduler = StepLR(self.optimizer, step_size=3, gamma=0.5)

    def adjust_lr(self):
        self.scheduler.step()

    def train(self):
        for epoch in range(self.args["epochs"]):
            self.adjust_lr()
            for x, y in self.loader:
                self.optimizer.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.optimizer.step()


Trainer(model, loader, {"epochs": 20}).train()
""",
    # a guard that holds on every pass (`epoch >= 0`)
    "guard_always_true": """warmup = 2
for epoch in range(epochs):
    if epoch >= 0:
        scheduler.step()
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
""",
    # a run() helper stepping before calling train()
    "helper_run_then_train": """def run(model, loader, optimizer, scheduler, n_epochs):
    for epoch in range(1, n_epochs + 1):
        scheduler.step()
        train(model, loader, optimizer)


def train(model, loader, optimizer):
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()


run(model, loader, optimizer, scheduler, epochs)
""",
    # `epoch % 1 == 0`
    "modulo_one": """for epoch in range(epochs):
    if epoch % 1 == 0:
        scheduler.step()
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
""",
    # before scaler.step(optimizer)
    "scaler_update": """from torch.cuda.amp import GradScaler, autocast
scaler = GradScaler()
for epoch in range(epochs):
    scheduler.step()
    for x, y in loader:
        optimizer.zero_grad()
        with autocast():
            loss = torch.nn.functional.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
""",
    # under a setting the file's default turns on
    "setting_guard": """import argparse
parser = argparse.ArgumentParser()
parser.add_argument("--scheduler", default="step")
args = parser.parse_args()
for epoch in range(epochs):
    if args.scheduler != "none":
        scheduler.step()
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
""",
    # under `if sched is not None:` on a factory's scheduler
    "not_none_factory": """def build_scheduler(name, optimizer):
    if name == "step":
        return StepLR(optimizer, step_size=5, gamma=0.5)
    if name == "cos":
        return CosineAnnealingLR(optimizer, T_max=epochs)
    return None


sched = build_scheduler("cos", optimizer)
for epoch in range(epochs):
    if sched is not None:
        sched.step()
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
""",
    # tqdm around both loops
    "tqdm_loops": """from tqdm import tqdm
for epoch in tqdm(range(epochs)):
    scheduler.step()
    for i, (x, y) in enumerate(tqdm(loader)):
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
""",
    # an iteration loop over `next(data_iter)`
    "iteration_loop": """max_iter = 10000
data_iter = iter(loader)
for it in range(max_iter):
    scheduler.step()
    try:
        x, y = next(data_iter)
    except StopIteration:
        data_iter = iter(loader)
        x, y = next(data_iter)
    optimizer.zero_grad()
    torch.nn.functional.mse_loss(model(x), y).backward()
    optimizer.step()
""",
    # the caller stepping an engine's scheduler before run_epoch()
    "engine_attribute": """class Engine:
    def __init__(self, model, optimizer, scheduler):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler

    def run_epoch(self, loader, epoch):
        self.model.train()
        for x, y in loader:
            self.optimizer.zero_grad()
            torch.nn.functional.mse_loss(self.model(x), y).backward()
            self.optimizer.step()


engine = Engine(model, optimizer, scheduler)
for epoch in range(epochs):
    engine.scheduler.step()
    engine.run_epoch(loader, epoch)
""",
    # a list of schedulers stepped at the top
    "list_of_schedulers": """schedulers = [scheduler]
for epoch in range(epochs):
    for s in schedulers:
        s.step()
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
""",
    # a while loop over epochs
    "while_epoch_loop": """epoch = 0
while epoch < epochs:
    scheduler.step()
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    epoch += 1
""",
    # `range(args.start_epoch, epochs)` with no guard
    "range_from_start_epoch": """import argparse
parser = argparse.ArgumentParser()
parser.add_argument("--start-epoch", type=int, default=0)
args = parser.parse_args()
for epoch in range(args.start_epoch, epochs):
    scheduler.step()
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
""",
    # in main(), before train()
    "main_function": """def train(model, loader, optimizer, epoch):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()


def main():
    best = 0.0
    for epoch in range(1, epochs + 1):
        scheduler.step()
        train(model, loader, optimizer, epoch)
        acc = 0.5
        if acc > best:
            best = acc
            torch.save(model.state_dict(), "best.pt")


if __name__ == "__main__":
    main()
""",
    # a trainer's `while self.epoch < epochs:`
    "trainer_while_attr": """class Trainer:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        self.scheduler = StepLR(self.optimizer, step_size=3, gamma=0.5)
        self.epoch = 0

    def train(self):
        while self.epoch < epochs:
            self.scheduler.step()
            self.train_epoch()
            self.epoch += 1

    def train_epoch(self):
        for batch_idx, (x, y) in enumerate(self.loader):
            self.optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(self.model(x), y)
            loss.backward()
            self.optimizer.step()


Trainer(model, loader).train()
""",
    # the LR read for logging, then the step
    "lr_read_before_step": """for epoch in range(epochs):
    lr = scheduler.get_last_lr()[0]
    scheduler.step()
    print(f"epoch {epoch} lr {lr}")
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
""",
    # under `if scheduler is not None:`
    "not_none_guard": """for epoch in range(epochs):
    if scheduler is not None:
        scheduler.step()
        lr = optimizer.param_groups[0]["lr"]
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
""",
    # a phase tuple in a train(cfg) function
    "phase_tuple_in_function": """def train(cfg):
    for epoch in range(cfg["epochs"]):
        for phase in ("train", "val"):
            if phase == "train":
                model.train()
                scheduler.step()
            else:
                model.eval()
            running = 0.0
            for x, y in loader:
                optimizer.zero_grad()
                with torch.set_grad_enabled(phase == "train"):
                    loss = torch.nn.functional.mse_loss(model(x), y)
                    if phase == "train":
                        loss.backward()
                        optimizer.step()
                running += loss.item()


train({"epochs": 25})
""",
    # `self.scheduler.step(epoch)` with epochs counted from 1
    "trainer_step_epoch_from_one": """class Trainer:
    def __init__(self, model, optimizer, scheduler, loader):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.loader = loader

    def _train_epoch(self, epoch):
        self.model.train()
        if self.scheduler is not None:
            self.scheduler.step(epoch)
        for x, y in self.loader:
            self.optimizer.zero_grad()
            torch.nn.functional.mse_loss(self.model(x), y).backward()
            self.optimizer.step()

    def train(self):
        for epoch in range(1, epochs + 1):
            self._train_epoch(epoch)


Trainer(model, optimizer, scheduler, loader).train()
""",
    # a callback's on_epoch_begin() run at the top of the epoch
    "callback_epoch_begin": """class LRCallback:
    def __init__(self, scheduler):
        self.scheduler = scheduler

    def on_epoch_begin(self, epoch):
        self.scheduler.step()

    def on_epoch_end(self, epoch):
        pass


callbacks = [LRCallback(scheduler)]
for epoch in range(epochs):
    for cb in callbacks:
        cb.on_epoch_begin(epoch)
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    for cb in callbacks:
        cb.on_epoch_end(epoch)
""",
    # the update in the model's own train_step(batch, optimizer)
    "model_train_step_method": """class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 1)

    def forward(self, x):
        return self.fc(x)

    def train_step(self, batch, optimizer):
        x, y = batch
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(self(x), y)
        loss.backward()
        optimizer.step()
        return loss.item()


net = Net()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
sched = MultiStepLR(opt, milestones=[5, 10], gamma=0.1)
for epoch in range(epochs):
    sched.step()
    for batch in loader:
        net.train_step(batch, opt)
""",
    # a scheduler prepared by accelerate, stepped at the top of the epoch
    "accelerate_prepared_scheduler": """from accelerate import Accelerator
accelerator = Accelerator(gradient_accumulation_steps=4)
model, optimizer, loader, scheduler = accelerator.prepare(model, optimizer, loader, scheduler)
for epoch in range(epochs):
    scheduler.step()
    for x, y in loader:
        with accelerator.accumulate(model):
            loss = torch.nn.functional.mse_loss(model(x), y)
            accelerator.backward(loss)
            optimizer.step()
            optimizer.zero_grad()
""",
    # the update in a trainer's _optimizer_step() helper
    "trainer_optimizer_step_helper": """class Trainer:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        self.scheduler = StepLR(self.optimizer, step_size=3, gamma=0.5)

    def _optimizer_step(self, loss):
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()

    def run(self):
        for epoch in range(epochs):
            self.scheduler.step()
            for x, y in self.loader:
                loss = torch.nn.functional.mse_loss(self.model(x), y)
                self._optimizer_step(loss)


Trainer(model, loader).run()
""",
}

CORRECT = {
    # `if epoch > 0:` before the updates
    "epoch_gt_zero": """for epoch in range(epochs):
    if epoch > 0:
        scheduler.step()
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
""",
    # `if epoch:`
    "epoch_truthy": """for epoch in range(epochs):
    if epoch:
        scheduler.step()
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
""",
    # a threshold read from a JSON config: unknown, silent
    "unknown_threshold": """import json
cfg = json.load(open("cfg.json"))
for epoch in range(epochs):
    if epoch >= cfg["warmup_epochs"]:
        scheduler.step()
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
""",
    # a `first` flag cleared after the first pass
    "first_flag": """first = True
for epoch in range(epochs):
    if not first:
        scheduler.step()
    first = False
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
""",
    # the phase loop stepping after the batch loop
    "phase_loop_after_batches": """dataloaders = {"train": loader, "val": loader}
for epoch in range(epochs):
    for phase in ["train", "val"]:
        model.train(phase == "train")
        for x, y in dataloaders[phase]:
            optimizer.zero_grad()
            with torch.set_grad_enabled(phase == "train"):
                loss = torch.nn.functional.mse_loss(model(x), y)
                if phase == "train":
                    loss.backward()
                    optimizer.step()
        if phase == "train":
            scheduler.step()
""",
    # `if epoch > args.start_epoch:`
    "after_start_epoch": """import argparse
parser = argparse.ArgumentParser()
parser.add_argument("--start-epoch", type=int, default=0)
args = parser.parse_args()
for epoch in range(args.start_epoch, epochs):
    if epoch > args.start_epoch:
        scheduler.step()
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
""",
    # `if epoch != 0:` in a train_one_epoch helper
    "helper_epoch_ne_zero": """def train_one_epoch(model, loader, optimizer, scheduler, epoch):
    if epoch != 0:
        scheduler.step()
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()


for epoch in range(epochs):
    train_one_epoch(model, loader, optimizer, scheduler, epoch)
""",
    # `range(1, n)` and `if epoch > 1:`
    "from_one_gt_one": """for epoch in range(1, epochs + 1):
    if epoch > 1:
        scheduler.step()
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
""",
    # `if i > 0 or epoch > 0:`
    "batch_or_epoch_gt_zero": """for epoch in range(epochs):
    for i, (x, y) in enumerate(loader):
        if i > 0 or epoch > 0:
            scheduler.step()
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
""",
    # `if epoch >= args.warmup_epochs:` with a default of 3
    "warmup_default_three": """import argparse
parser = argparse.ArgumentParser()
parser.add_argument("--warmup-epochs", type=int, default=3)
args = parser.parse_args()
for epoch in range(epochs):
    if epoch >= args.warmup_epochs:
        scheduler.step()
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
""",
    # `scheduler.step(epoch)` from epoch 0: position 0 is kept
    "explicit_epoch_position": """for epoch in range(epochs):
    scheduler.step(epoch)
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
""",
    # `scheduler.step(epoch)` in `range(start_epoch, epochs)` with `start_epoch = 0`
    "explicit_epoch_from_start": """start_epoch = 0
for epoch in range(start_epoch, epochs):
    scheduler.step(epoch)
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
""",
}

# a LightningModule in manual optimization: Lightning calls the epoch- and batch-start hooks
# before training_step, whose opt.step() is the update
MANUAL = """import torch
import pytorch_lightning as pl
from torch.optim.lr_scheduler import StepLR


class Model(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(16, 1)
        self.automatic_optimization = False

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.net(x), y)
        opt.zero_grad()
        self.manual_backward(loss)
        opt.step()
        return loss

{hook}    def configure_optimizers(self):
        opt = torch.optim.SGD(self.parameters(), lr=0.1)
        return [opt], [StepLR(opt, step_size=5, gamma=0.5)]


pl.Trainer(max_epochs=10).fit(Model())
"""

LIGHTNING_BUGS = {
    "epoch_start_hook": """    def on_train_epoch_start(self):
        self.lr_schedulers().step()

""",
    "batch_start_hook": """    def on_train_batch_start(self, batch, batch_idx):
        self.lr_schedulers().step()

""",
}

LIGHTNING_CORRECT = {
    "epoch_end_hook": """    def on_train_epoch_end(self):
        self.lr_schedulers().step()

""",
    # Lightning's epoch counter is 0 on the first epoch: the first step comes after it
    "epoch_start_after_first": """    def on_train_epoch_start(self):
        if self.current_epoch > 0:
            self.lr_schedulers().step()

""",
}


@pytest.mark.parametrize("name", sorted(BUGS))
def test_step_before_the_update_is_reported(name: str) -> None:
    assert "LRD001" in codes(HEADER + BUGS[name])


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_correct_twin_is_left_alone(name: str) -> None:
    assert "LRD001" not in codes(HEADER + CORRECT[name])


@pytest.mark.parametrize("name", sorted(LIGHTNING_BUGS))
def test_manual_optimization_start_hook_is_reported(name: str) -> None:
    assert "LRD001" in codes(MANUAL.replace("{hook}", LIGHTNING_BUGS[name]))


@pytest.mark.parametrize("name", sorted(LIGHTNING_CORRECT))
def test_manual_optimization_correct_twin_is_left_alone(name: str) -> None:
    assert "LRD001" not in codes(MANUAL.replace("{hook}", LIGHTNING_CORRECT[name]))
