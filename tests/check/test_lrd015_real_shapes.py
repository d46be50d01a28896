"""LRD015 (get_lr() read for a log) in the shapes real training code writes it: the value in a
log dict, an f-string, a `%`/`.format` line, a tensorboard `add_scalar`, a wandb call, a tqdm
`set_postfix`, a helper function or a trainer method `def get_lr(self)` returning it, schedulers
held in `self.lr_scheduler` (set in another method), a dict, a state dict, a factory that
returns a torch built-in, a choice of built-ins; and the correct twins (`get_last_lr()`, the
param group's LR, the closed-form LambdaLR / OneCycleLR, a project scheduler class, a warm-up
wrapper or subclass whose get_lr() runs in its own step())."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

HEADER = """import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.optim.lr_scheduler import StepLR, MultiStepLR, CosineAnnealingLR, ExponentialLR, LambdaLR, OneCycleLR, LinearLR
data = TensorDataset(torch.randn(512, 16), torch.randn(512, 1))
loader = DataLoader(data, batch_size=16)
model = torch.nn.Linear(16, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
epochs = 20
"""

BUGS = {
    "log_dict": """
import logging
logger = logging.getLogger(__name__)
scheduler = MultiStepLR(optimizer, milestones=[8, 15], gamma=0.1)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
    scheduler.step()
    stats = {"epoch": epoch, "loss": loss.item(), "lr": scheduler.get_lr()[0]}
    logger.info(stats)
""",
    "fstring": """
scheduler = StepLR(optimizer, step_size=5, gamma=0.5)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
    print(f"Epoch [{epoch}/{epochs}] loss={loss.item():.4f} lr={scheduler.get_lr()[0]:.6f}")
    scheduler.step()
""",
    "tensorboard": """
from torch.utils.tensorboard import SummaryWriter
writer = SummaryWriter("runs")
scheduler = CosineAnnealingLR(optimizer, T_max=epochs)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
    scheduler.step()
    writer.add_scalar("train/lr", scheduler.get_lr()[0], epoch)
""",
    "wandb": """
import wandb
wandb.init(project="x")
scheduler = ExponentialLR(optimizer, gamma=0.95)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
    scheduler.step()
    wandb.log({"lr": scheduler.get_lr()[0], "loss": loss.item()}, step=epoch)
""",
    "tqdm": """
from tqdm import tqdm
scheduler = MultiStepLR(optimizer, milestones=[10, 15])
for epoch in range(epochs):
    bar = tqdm(loader)
    for x, y in bar:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        bar.set_postfix(loss=loss.item(), lr=scheduler.get_lr()[0])
    scheduler.step()
""",
    "helper_fn": """
scheduler = StepLR(optimizer, step_size=5, gamma=0.5)

def current_lr():
    return scheduler.get_lr()[0]

for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
    scheduler.step()
    print("epoch", epoch, "lr", current_lr())
""",
    "trainer_attr": """
class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.lr_scheduler = None

    def build_scheduler(self):
        self.lr_scheduler = MultiStepLR(self.optimizer, milestones=[5, 10], gamma=0.1)

    def get_lr(self):
        return self.lr_scheduler.get_lr()[0]

    def train_epoch(self, epoch):
        for x, y in loader:
            self.optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(self.model(x), y)
            loss.backward()
            self.optimizer.step()
        self.lr_scheduler.step()
        print(f"epoch {epoch} lr {self.get_lr():.5f}")

    def fit(self):
        self.build_scheduler()
        for epoch in range(epochs):
            self.train_epoch(epoch)

Trainer(model, optimizer).fit()
""",
    "schedulers_dict": """
class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.schedulers = {"main": CosineAnnealingLR(optimizer, T_max=epochs)}

    def fit(self):
        for epoch in range(epochs):
            for x, y in loader:
                self.optimizer.zero_grad()
                loss = torch.nn.functional.mse_loss(self.model(x), y)
                loss.backward()
                self.optimizer.step()
            self.schedulers["main"].step()
            print("lr", self.schedulers["main"].get_lr()[0])

Trainer(model, optimizer).fit()
""",
    "factory": """
def build_scheduler(name, optimizer):
    if name == "step":
        return StepLR(optimizer, step_size=5, gamma=0.5)
    return MultiStepLR(optimizer, milestones=[5, 10], gamma=0.1)

scheduler = build_scheduler("step", optimizer)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
    scheduler.step()
    print("lr", scheduler.get_lr()[0])
""",
    "factory_args": """
import argparse
parser = argparse.ArgumentParser()
parser.add_argument("--lr_decay_epochs", type=int, nargs="+", default=[10, 15])
args = parser.parse_args()

def make_scheduler(optimizer, args):
    return MultiStepLR(optimizer, milestones=args.lr_decay_epochs, gamma=0.1)

scheduler = make_scheduler(optimizer, args)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
    scheduler.step()
    print("epoch %d lr %.5f" % (epoch, scheduler.get_lr()[0]))
""",
    "train_fn_param": """
def train(model, loader, optimizer, scheduler, epoch):
    model.train()
    for i, (x, y) in enumerate(loader):
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        if i % 10 == 0:
            print("Epoch: {} [{}] loss {:.4f} lr {:.6f}".format(epoch, i, loss.item(), scheduler.get_lr()[0]))

scheduler = StepLR(optimizer, step_size=5, gamma=0.5)
for epoch in range(epochs):
    train(model, loader, optimizer, scheduler, epoch)
    scheduler.step()
""",
    "lr_var": """
scheduler = CosineAnnealingLR(optimizer, T_max=epochs * len(loader))
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        scheduler.step()
    lr = scheduler.get_lr()
    print("lr", lr[0])
""",
    "linear_warm": """
scheduler = LinearLR(optimizer, start_factor=0.1, total_iters=5)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
    scheduler.step()
    print("lr", scheduler.get_lr())
""",
    "main_fn_args": """
def main():
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, [10, 15], 0.1)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
        scheduler.step()
        lr = scheduler.get_lr()[0]
        print(f"{epoch}: {lr}")

if __name__ == "__main__":
    main()
""",
    "choice": """
import argparse
p = argparse.ArgumentParser()
p.add_argument("--sched", default="step")
args = p.parse_args()
if args.sched == "step":
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 5)
elif args.sched == "cos":
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, epochs)
else:
    scheduler = None
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    if scheduler is not None:
        scheduler.step()
        print("lr", scheduler.get_lr()[0])
""",
    "state_dict": """
state = {"model": model, "optimizer": optimizer,
         "scheduler": torch.optim.lr_scheduler.MultiStepLR(optimizer, [5, 10])}
for epoch in range(epochs):
    for x, y in loader:
        state["optimizer"].zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        state["optimizer"].step()
    state["scheduler"].step()
    print("lr", state["scheduler"].get_lr()[0])
""",
    "log_fn": """
def log_epoch(writer, epoch, loss, scheduler):
    writer.add_scalar("loss", loss, epoch)
    writer.add_scalar("lr", scheduler.get_lr()[0], epoch)

from torch.utils.tensorboard import SummaryWriter
def main():
    writer = SummaryWriter()
    sched = torch.optim.lr_scheduler.ExponentialLR(optimizer, 0.9)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
        sched.step()
        log_epoch(writer, epoch, loss.item(), sched)
main()
""",
    "configure": """
class Solver:
    def __init__(self, cfg):
        self.cfg = cfg
        self.model = model
        self._setup()

    def _setup(self):
        self.optim = torch.optim.Adam(self.model.parameters(), lr=self.cfg["lr"])
        self.sched = torch.optim.lr_scheduler.StepLR(self.optim, step_size=self.cfg["step"], gamma=0.1)

    def train(self):
        for epoch in range(self.cfg["epochs"]):
            for i, (x, y) in enumerate(loader):
                self.optim.zero_grad()
                loss = torch.nn.functional.mse_loss(self.model(x), y)
                loss.backward()
                self.optim.step()
                if i % 10 == 0:
                    print("[%d/%d] loss %.4f lr %.6f" % (epoch, i, loss.item(), self.sched.get_lr()[0]))
            self.sched.step()

if __name__ == "__main__":
    Solver({"lr": 1e-3, "step": 5, "epochs": 10}).train()
""",
    "rank0": """
import torch.distributed as dist
def main(rank):
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs, eta_min=1e-5)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        scheduler.step()
        if rank == 0:
            lr = scheduler.get_lr()
            print("epoch {} lr {}".format(epoch, lr))
main(0)
""",
    "trainer_fn": """
class Trainer:
    def __init__(self, model, optimizer, scheduler):
        self.model, self.optimizer, self.scheduler = model, optimizer, scheduler
    def train_epoch(self, epoch):
        for x, y in loader:
            self.optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(self.model(x), y)
            loss.backward()
            self.optimizer.step()
        self.scheduler.step()
        return {"loss": loss.item(), "lr": self.scheduler.get_lr()[0]}

scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30, gamma=0.1)
trainer = Trainer(model, optimizer, scheduler)
for epoch in range(epochs):
    print(trainer.train_epoch(epoch))
""",
    "tuple_ret": """
def build_optim(model, lr, milestones):
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=milestones, gamma=0.1)
    return opt, sched

def main():
    opt, sched = build_optim(model, 0.1, [5, 10])
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        sched.step()
        print(f"lr: {sched.get_lr()}")
main()
""",
    "template": """
class BaseTrainer:
    def __init__(self):
        self.optimizer = self.build_optimizer()
        self.scheduler = self.build_scheduler(self.optimizer)
    def build_optimizer(self):
        raise NotImplementedError
    def build_scheduler(self, optimizer):
        raise NotImplementedError
    def train(self):
        for epoch in range(epochs):
            for x, y in loader:
                self.optimizer.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                self.optimizer.step()
            self.scheduler.step()
            self.log(epoch)
    def log(self, epoch):
        print("epoch", epoch, "lr", self.scheduler.get_lr()[0])

class MyTrainer(BaseTrainer):
    def build_optimizer(self):
        return torch.optim.SGD(model.parameters(), lr=0.1)
    def build_scheduler(self, optimizer):
        return torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.1)

if __name__ == "__main__":
    MyTrainer().train()
""",
    "hook": """
class LRLogger:
    def __init__(self, scheduler):
        self.scheduler = scheduler
    def on_epoch_end(self, epoch):
        print("lr", self.scheduler.get_lr()[0])

scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10)
callbacks = [LRLogger(scheduler)]
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    scheduler.step()
    for cb in callbacks:
        cb.on_epoch_end(epoch)
""",
}

CORRECT = {
    "last_lr": """
from torch.utils.tensorboard import SummaryWriter
writer = SummaryWriter("runs")
scheduler = CosineAnnealingLR(optimizer, T_max=epochs)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
    scheduler.step()
    writer.add_scalar("train/lr", scheduler.get_last_lr()[0], epoch)
""",
    "param_groups": """
import logging
logger = logging.getLogger(__name__)
scheduler = MultiStepLR(optimizer, milestones=[8, 15], gamma=0.1)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
    scheduler.step()
    stats = {"epoch": epoch, "loss": loss.item(), "lr": optimizer.param_groups[0]["lr"]}
    logger.info(stats)
""",
    "lambda": """
scheduler = LambdaLR(optimizer, lambda e: 0.5 ** (e // 5))
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
    print(f"Epoch [{epoch}/{epochs}] loss={loss.item():.4f} lr={scheduler.get_lr()[0]:.6f}")
    scheduler.step()
""",
    "onecycle": """
scheduler = OneCycleLR(optimizer, max_lr=0.1, total_steps=epochs * len(loader))
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        scheduler.step()
    print("lr", scheduler.get_lr()[0])
""",
    "custom_sched": """
from torch.optim.lr_scheduler import _LRScheduler
class Poly(_LRScheduler):
    def __init__(self, optimizer, max_iters, power=0.9, last_epoch=-1):
        self.max_iters = max_iters
        self.power = power
        super().__init__(optimizer, last_epoch)
    def get_lr(self):
        return [b * (1 - self.last_epoch / self.max_iters) ** self.power for b in self.base_lrs]
scheduler = Poly(optimizer, epochs)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
    scheduler.step()
    print("lr", scheduler.get_lr()[0])
""",
    "trainer_last": """
class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.lr_scheduler = None

    def build_scheduler(self):
        self.lr_scheduler = MultiStepLR(self.optimizer, milestones=[5, 10], gamma=0.1)

    def get_lr(self):
        return self.lr_scheduler.get_last_lr()[0]

    def train_epoch(self, epoch):
        for x, y in loader:
            self.optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(self.model(x), y)
            loss.backward()
            self.optimizer.step()
        self.lr_scheduler.step()
        print(f"epoch {epoch} lr {self.get_lr():.5f}")

    def fit(self):
        self.build_scheduler()
        for epoch in range(epochs):
            self.train_epoch(epoch)

Trainer(model, optimizer).fit()
""",
    "helper_last": """
scheduler = StepLR(optimizer, step_size=5, gamma=0.5)

def current_lr():
    return scheduler.get_last_lr()[0]

for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
    scheduler.step()
    print("epoch", epoch, "lr", current_lr())
""",
    "factory_lambda": """
import sys
cfg_name = sys.argv[1]
def build_scheduler(name, optimizer):
    if name == "step":
        return StepLR(optimizer, step_size=5, gamma=0.5)
    return LambdaLR(optimizer, lambda e: 1.0)

scheduler = build_scheduler(cfg_name, optimizer)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
    scheduler.step()
    print("lr", scheduler.get_lr()[0])
""",
    "warmup_wrapper_with_step": """
class WarmUp:
    # a wrapper stepping itself: its get_lr() runs inside its own step()
    def __init__(self, optimizer, warmup, after):
        self.optimizer, self.warmup, self.after, self.epoch = optimizer, warmup, after, 0

    def get_lr(self):
        if self.epoch < self.warmup:
            return [0.1 * (self.epoch + 1) / self.warmup]
        return self.after.get_lr()

    def step(self):
        self.epoch += 1
        if self.epoch >= self.warmup:
            self.after.step()
        for group, lr in zip(self.optimizer.param_groups, self.get_lr()):
            group["lr"] = lr

scheduler = WarmUp(optimizer, 5, StepLR(optimizer, step_size=5, gamma=0.5))
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    scheduler.step()
""",
    "warmup_subclass": """
from torch.optim.lr_scheduler import _LRScheduler


class GradualWarmup(_LRScheduler):
    def __init__(self, optimizer, total_epoch, after_scheduler):
        self.total_epoch = total_epoch
        self.after_scheduler = after_scheduler
        super().__init__(optimizer)

    def get_lr(self):
        if self.last_epoch > self.total_epoch:
            return self.after_scheduler.get_lr()
        return [b * self.last_epoch / self.total_epoch for b in self.base_lrs]


scheduler = GradualWarmup(optimizer, 5, CosineAnnealingLR(optimizer, T_max=epochs))
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    scheduler.step()
""",
}


@pytest.mark.parametrize("name", sorted(BUGS))
def test_get_lr_read_for_a_log_is_reported(name: str) -> None:
    assert "LRD015" in codes(HEADER + BUGS[name])


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_correct_twin_is_left_alone(name: str) -> None:
    assert "LRD015" not in codes(HEADER + CORRECT[name])
