"""LRD014 (stale optimizer) in the shapes real training code writes it: an optimizer rebuilt
for a fine-tuning or unfreezing stage (in a loop over stages, in an `unfreeze()` method, under
`if epoch == freeze_epochs:`) while the scheduler built before keeps driving the old one, an
optimizer rebuilt inside the epoch loop, after a checkpoint load or after moving the model, a
trainer's `self.optimizer` replaced in another method, apex's `amp.initialize` handing back a
new optimizer after the scheduler was built; and the correct twins a careful reviewer would not
report (the scheduler rebuilt with the new optimizer, `add_param_group`, the old optimizer
reused)."""

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
"""

BUGS = {
    # the backbone frozen for the first epochs, then a fresh optimizer over every parameter
    "unfreeze_at_epoch": """
for p in model[0].parameters():
    p.requires_grad = False
optimizer = torch.optim.Adam(filter(lambda p: p.requires_grad, model.parameters()), lr=1e-3)
scheduler = CosineAnnealingLR(optimizer, T_max=epochs)
for epoch in range(epochs):
    if epoch == freeze_epochs:
        for p in model.parameters():
            p.requires_grad = True
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    scheduler.step()
""",
    # a loop over stages, each with its own optimizer, one scheduler built before it
    "stages_loop": """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = StepLR(optimizer, step_size=3, gamma=0.5)
stages = [(model[2], 1e-2, 5), (model, 1e-3, 10)]
for module, lr, n_epochs in stages:
    optimizer = torch.optim.SGD(module.parameters(), lr=lr, momentum=0.9)
    for epoch in range(n_epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        scheduler.step()
""",
    # the optimizer rebuilt at the top of every epoch (a habit of some scripts)
    "rebuilt_each_epoch": """
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
scheduler = StepLR(optimizer, step_size=5, gamma=0.1)
for epoch in range(epochs):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    scheduler.step()
""",
    # a checkpoint loaded into the model, then the optimizer built again for fine-tuning
    "rebuilt_after_load": """
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scheduler = CosineAnnealingLR(optimizer, T_max=epochs)
state = {"model": model.state_dict()}
model.load_state_dict(state["model"])
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    scheduler.step()
""",
    # the model moved to its device and the optimizer rebuilt over the moved parameters
    "rebuilt_after_to": """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = MultiStepLR(optimizer, milestones=[8, 15], gamma=0.1)
device = torch.device("cpu")
model = model.to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    scheduler.step()
""",
    # a trainer whose unfreeze() replaces self.optimizer, self.scheduler kept
    "trainer_unfreeze_method": """
class Trainer:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.Adam(model[2].parameters(), lr=1e-3)
        self.scheduler = CosineAnnealingLR(self.optimizer, T_max=epochs)

    def unfreeze(self):
        for p in self.model.parameters():
            p.requires_grad = True
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-4)

    def train_epoch(self):
        for x, y in self.loader:
            self.optimizer.zero_grad()
            torch.nn.functional.mse_loss(self.model(x), y).backward()
            self.optimizer.step()
        self.scheduler.step()

    def fit(self):
        for epoch in range(epochs):
            if epoch == freeze_epochs:
                self.unfreeze()
            self.train_epoch()


Trainer(model, loader).fit()
""",
    # configure_stage(): the stage's optimizer replaced, the scheduler of __init__ stepped on
    "trainer_configure_stage": """
class Trainer:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.scheduler = StepLR(self.optimizer, step_size=2, gamma=0.5)

    def configure_stage(self, stage):
        lr = 0.1 if stage == 0 else 0.01
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=lr, momentum=0.9)

    def run(self):
        for stage in range(2):
            self.configure_stage(stage)
            for epoch in range(epochs):
                for x, y in self.loader:
                    self.optimizer.zero_grad()
                    torch.nn.functional.mse_loss(self.model(x), y).backward()
                    self.optimizer.step()
                self.scheduler.step()


Trainer(model, loader).run()
""",
    # a per-batch OneCycle on the first optimizer; the finetune phase replaces the optimizer
    "onecycle_finetune_phase": """
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scheduler = OneCycleLR(optimizer, max_lr=1e-3, total_steps=epochs * len(loader))
for epoch in range(epochs):
    if epoch == freeze_epochs:
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.01)
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        scheduler.step()
""",
    # a helper that builds the optimizer, called again for the finetune stage
    "helper_rebuild_in_phase": """
def make_optimizer(params, lr):
    return torch.optim.Adam(params, lr=lr)


def train(model, loader):
    optimizer = make_optimizer(model[2].parameters(), 1e-3)
    scheduler = StepLR(optimizer, step_size=3, gamma=0.5)
    for epoch in range(epochs):
        if epoch == freeze_epochs:
            optimizer = make_optimizer(model.parameters(), 1e-4)
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        scheduler.step()


train(model, loader)
""",
    # the rebuild on a flag read from the config, inside the epoch loop
    "unfreeze_flag_in_loop": """
import argparse
parser = argparse.ArgumentParser()
parser.add_argument("--unfreeze-epoch", type=int, default=3)
args = parser.parse_args()
optimizer = torch.optim.Adam(model[2].parameters(), lr=1e-3)
scheduler = StepLR(optimizer, step_size=5, gamma=0.5)
for epoch in range(epochs):
    if epoch == args.unfreeze_epoch:
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    scheduler.step()
""",
    # the optimizer rebuilt on the first batch (to pick up lazily built parameters)
    "first_batch_rebuild": """class Supervisor:
    def __init__(self, model):
        self.model = model

    def train(self, loader, base_lr=1e-2, steps=(20, 30)):
        optimizer = torch.optim.Adam(self.model.parameters(), lr=base_lr, eps=1e-3)
        lr_scheduler = MultiStepLR(optimizer, milestones=list(steps), gamma=0.1)
        batches_seen = 0
        for epoch_num in range(epochs):
            for x, y in loader:
                optimizer.zero_grad()
                out = self.model(x)
                if batches_seen == 0:
                    optimizer = torch.optim.Adam(self.model.parameters(), lr=base_lr, eps=1e-3)
                loss = torch.nn.functional.mse_loss(out, y)
                loss.backward()
                optimizer.step()
                batches_seen += 1
            lr_scheduler.step()


Supervisor(model).train(loader)
""",
    # a train helper handed the new optimizer and the old scheduler
    "helper_gets_new_optimizer_old_scheduler": """def train_one_epoch(model, loader, optimizer, scheduler):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        scheduler.step()


optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scheduler = OneCycleLR(optimizer, max_lr=1e-3, total_steps=epochs * len(loader))
for epoch in range(epochs):
    if epoch == freeze_epochs:
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    train_one_epoch(model, loader, optimizer, scheduler)
""",
    # a fine-tuning flag rebuilds the optimizer before training
    "finetune_flag_outside_loop": """import argparse
parser = argparse.ArgumentParser()
parser.add_argument("--finetune", action="store_true")
args = parser.parse_args()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = StepLR(optimizer, step_size=5, gamma=0.1)
if args.finetune:
    for p in model[0].parameters():
        p.requires_grad = False
    optimizer = torch.optim.SGD(model[2].parameters(), lr=0.01)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    scheduler.step()
""",
    # a while loop over epochs
    "while_loop_unfreeze": """optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = CosineAnnealingLR(optimizer, T_max=epochs)
epoch = 0
while epoch < epochs:
    if epoch == freeze_epochs:
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    scheduler.step()
    epoch += 1
""",
    # a learner's unfreeze() called by module-level code between two fits
    "learner_unfreeze_between_fits": """class Learner:
    def __init__(self, model, loader, lr):
        self.model = model
        self.loader = loader
        self.lr = lr
        self.opt = self.build_optimizer()
        self.sched = StepLR(self.opt, step_size=3, gamma=0.5)

    def build_optimizer(self):
        params = [p for p in self.model.parameters() if p.requires_grad]
        return torch.optim.Adam(params, lr=self.lr)

    def unfreeze(self):
        for p in self.model.parameters():
            p.requires_grad = True
        self.opt = self.build_optimizer()

    def fit_one_cycle(self, n):
        for epoch in range(n):
            for x, y in self.loader:
                self.opt.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.opt.step()
            self.sched.step()


learn = Learner(model, loader, 1e-3)
learn.fit_one_cycle(3)
learn.unfreeze()
learn.fit_one_cycle(10)
""",
    # a loop over stages in main(), the per-batch warm-up left on the head's optimizer
    "stage_loop_in_function": """def main():
    optimizer = torch.optim.Adam(model[2].parameters(), lr=1e-3)
    scheduler = LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 100))
    for stage in ("head", "full"):
        if stage == "full":
            optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
        for epoch in range(epochs):
            for x, y in loader:
                optimizer.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                optimizer.step()
                scheduler.step()


if __name__ == "__main__":
    main()
""",
    # the rebuild two calls deep (fit -> on_epoch_start -> unfreeze), the step in another method fit calls
    "unfreeze_from_epoch_hook": """class Trainer:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.Adam(model[2].parameters(), lr=1e-3)
        self.scheduler = CosineAnnealingLR(self.optimizer, T_max=epochs)

    def unfreeze(self):
        for p in self.model.parameters():
            p.requires_grad = True
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-4)

    def on_epoch_start(self, epoch):
        if epoch == freeze_epochs:
            self.unfreeze()

    def train_epoch(self):
        for x, y in self.loader:
            self.optimizer.zero_grad()
            torch.nn.functional.mse_loss(self.model(x), y).backward()
            self.optimizer.step()
        self.scheduler.step()

    def fit(self):
        for epoch in range(epochs):
            self.on_epoch_start(epoch)
            self.train_epoch()


def main():
    trainer = Trainer(model, loader)
    trainer.fit()


if __name__ == "__main__":
    main()
""",
    # a registry's build_optimizer (not importable here) called again for the new stage
    "registry_builder_called_again": """from mmcv.runner import build_optimizer
cfg = dict(type="SGD", lr=0.01)
optimizer = build_optimizer(model, cfg)
scheduler = StepLR(optimizer, step_size=5, gamma=0.1)
for epoch in range(epochs):
    if epoch == freeze_epochs:
        optimizer = build_optimizer(model, dict(type="SGD", lr=0.001))
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    scheduler.step()
""",
    # the project's optimizer factory called again for the new stage
    "choice_factory_called_again": """import argparse
parser = argparse.ArgumentParser()
parser.add_argument("--optim", default="adam")
args = parser.parse_args()


def get_optimizer(name, params, lr):
    if name == "adam":
        return torch.optim.Adam(params, lr=lr)
    return torch.optim.SGD(params, lr=lr, momentum=0.9)


optimizer = get_optimizer(args.optim, model[2].parameters(), 1e-3)
scheduler = StepLR(optimizer, step_size=5, gamma=0.1)
for epoch in range(epochs):
    if epoch == freeze_epochs:
        optimizer = get_optimizer(args.optim, model.parameters(), 1e-4)
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    scheduler.step()
""",
    # a trainer's resume() rebuilds self.optimizer, called from the `__main__` block before fit()
    "trainer_resume_rebuilds_optimizer": """class Trainer:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        self.scheduler = StepLR(self.optimizer, step_size=5, gamma=0.5)

    def resume(self, path):
        state = torch.load(path)
        self.model.load_state_dict(state["model"])
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=state["lr"])

    def fit(self):
        for epoch in range(epochs):
            for x, y in self.loader:
                self.optimizer.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.optimizer.step()
            self.scheduler.step()


if __name__ == "__main__":
    import sys
    t = Trainer(model, loader)
    if len(sys.argv) > 1:
        t.resume(sys.argv[1])
    t.fit()
""",
    # the optimizer class taken from torch.optim by a setting, built again over every parameter
    "class_from_torch_optim_again": """optimizer_class = getattr(torch.optim, "AdamW")
optimizer = optimizer_class(model[2].parameters(), lr=1e-3)
scheduler = CosineAnnealingLR(optimizer, T_max=epochs)
for epoch in range(epochs):
    if epoch == freeze_epochs:
        optimizer = optimizer_class(model.parameters(), lr=1e-4)
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    scheduler.step()
""",
}

CORRECT = {
    # apex: amp.initialize patches the optimizer it is given and hands the same object back,
    # so a scheduler built before it still drives the optimizer being stepped
    "apex_after_scheduler": """
from apex import amp
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = MultiStepLR(optimizer, milestones=[10, 15], gamma=0.1)
model, optimizer = amp.initialize(model, optimizer, opt_level="O1")
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        with amp.scale_loss(loss, optimizer) as scaled:
            scaled.backward()
        optimizer.step()
    scheduler.step()
""",
    # the scheduler built again with the new optimizer
    "unfreeze_rebuilds_scheduler": """
optimizer = torch.optim.Adam(model[2].parameters(), lr=1e-3)
scheduler = CosineAnnealingLR(optimizer, T_max=freeze_epochs)
for epoch in range(epochs):
    if epoch == freeze_epochs:
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
        scheduler = CosineAnnealingLR(optimizer, T_max=epochs - freeze_epochs)
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    scheduler.step()
""",
    # a stage loop that builds both per stage
    "stages_loop_both": """
stages = [(model[2], 1e-2, 5), (model, 1e-3, 10)]
for module, lr, n_epochs in stages:
    optimizer = torch.optim.SGD(module.parameters(), lr=lr, momentum=0.9)
    scheduler = StepLR(optimizer, step_size=3, gamma=0.5)
    for epoch in range(n_epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        scheduler.step()
""",
    # add_param_group: the same optimizer, the scheduler still drives it
    "add_param_group": """
for p in model[0].parameters():
    p.requires_grad = False
optimizer = torch.optim.Adam(model[2].parameters(), lr=1e-3)
scheduler = StepLR(optimizer, step_size=5, gamma=0.5)
for epoch in range(epochs):
    if epoch == freeze_epochs:
        for p in model[0].parameters():
            p.requires_grad = True
        optimizer.add_param_group({"params": model[0].parameters(), "lr": 1e-4})
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    scheduler.step()
""",
    # unfreezing by requires_grad only: the optimizer holds every parameter already
    "requires_grad_only": """
for p in model[0].parameters():
    p.requires_grad = False
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
scheduler = StepLR(optimizer, step_size=5, gamma=0.5)
for epoch in range(epochs):
    if epoch == freeze_epochs:
        for p in model[0].parameters():
            p.requires_grad = True
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    scheduler.step()
""",
    # a trainer whose unfreeze() rebuilds both
    "trainer_unfreeze_both": """
class Trainer:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader
        self.build(model[2].parameters(), 1e-3)

    def build(self, params, lr):
        self.optimizer = torch.optim.Adam(params, lr=lr)
        self.scheduler = CosineAnnealingLR(self.optimizer, T_max=epochs)

    def unfreeze(self):
        self.build(self.model.parameters(), 1e-4)

    def train_epoch(self):
        for x, y in self.loader:
            self.optimizer.zero_grad()
            torch.nn.functional.mse_loss(self.model(x), y).backward()
            self.optimizer.step()
        self.scheduler.step()

    def fit(self):
        for epoch in range(epochs):
            if epoch == freeze_epochs:
                self.unfreeze()
            self.train_epoch()


Trainer(model, loader).fit()
""",
    # apex before the scheduler: the scheduler drives the optimizer amp handed back
    "apex_before_scheduler": """
from apex import amp
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
model, optimizer = amp.initialize(model, optimizer, opt_level="O1")
scheduler = MultiStepLR(optimizer, milestones=[10, 15], gamma=0.1)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        with amp.scale_loss(loss, optimizer) as scaled:
            scaled.backward()
        optimizer.step()
    scheduler.step()
""",
    # the optimizer's state loaded in place after a checkpoint: the same object
    "load_state_in_place": """
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scheduler = CosineAnnealingLR(optimizer, T_max=epochs)
ckpt = {"model": model.state_dict(), "optimizer": optimizer.state_dict()}
model.load_state_dict(ckpt["model"])
optimizer.load_state_dict(ckpt["optimizer"])
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    scheduler.step()
""",
    # a second optimizer for a second model, each with its own schedule
    "two_models_two_schedules": """
critic = torch.nn.Linear(1, 1)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
scheduler = StepLR(optimizer, step_size=5, gamma=0.5)
optimizer_c = torch.optim.Adam(critic.parameters(), lr=1e-3)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        optimizer_c.zero_grad()
        torch.nn.functional.mse_loss(critic(model(x)), y).backward()
        optimizer.step()
        optimizer_c.step()
    scheduler.step()
""",
    # the optimizer rebuilt each epoch together with its scheduler, resumed at the epoch
    "rebuilt_each_epoch_with_scheduler": """
for epoch in range(epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1 * 0.5 ** (epoch // 5))
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
""",
    # the configure_stage method builds the scheduler too
    "trainer_configure_stage_both": """
class Trainer:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader

    def configure_stage(self, stage):
        lr = 0.1 if stage == 0 else 0.01
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=lr, momentum=0.9)
        self.scheduler = StepLR(self.optimizer, step_size=2, gamma=0.5)

    def run(self):
        for stage in range(2):
            self.configure_stage(stage)
            for epoch in range(epochs):
                for x, y in self.loader:
                    self.optimizer.zero_grad()
                    torch.nn.functional.mse_loss(self.model(x), y).backward()
                    self.optimizer.step()
                self.scheduler.step()


Trainer(model, loader).run()
""",
    # accelerate's prepare wraps the optimizer, whose param_groups are the wrapped one's
    "accelerate_prepare_after_scheduler": """from accelerate import Accelerator
accelerator = Accelerator()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scheduler = CosineAnnealingLR(optimizer, T_max=epochs * len(loader))
model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        accelerator.backward(torch.nn.functional.mse_loss(model(x), y))
        optimizer.step()
        scheduler.step()
""",
    # Horovod's DistributedOptimizer is built on the same param_groups dicts
    "horovod_after_scheduler": """import horovod.torch as hvd
hvd.init()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1 * hvd.size(), momentum=0.9)
scheduler = MultiStepLR(optimizer, milestones=[10, 15], gamma=0.1)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    scheduler.step()
""",
    # the learner's unfreeze() rebuilds the scheduler too
    "learner_unfreeze_rebuilds_both": """class Learner:
    def __init__(self, model, loader, lr):
        self.model = model
        self.loader = loader
        self.lr = lr
        self.opt = self.build_optimizer()
        self.sched = StepLR(self.opt, step_size=3, gamma=0.5)

    def build_optimizer(self):
        params = [p for p in self.model.parameters() if p.requires_grad]
        return torch.optim.Adam(params, lr=self.lr)

    def unfreeze(self):
        for p in self.model.parameters():
            p.requires_grad = True
        self.opt = self.build_optimizer()
        self.sched = StepLR(self.opt, step_size=3, gamma=0.5)

    def fit_one_cycle(self, n):
        for epoch in range(n):
            for x, y in self.loader:
                self.opt.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.opt.step()
            self.sched.step()


learn = Learner(model, loader, 1e-3)
learn.fit_one_cycle(3)
learn.unfreeze()
learn.fit_one_cycle(10)
""",
    # the optimizer replaced after the last fit: nothing steps the scheduler afterwards
    "learner_reset_after_training": """class Learner:
    def __init__(self, model, loader, lr):
        self.model = model
        self.loader = loader
        self.opt = torch.optim.Adam(model.parameters(), lr=lr)
        self.sched = StepLR(self.opt, step_size=3, gamma=0.5)

    def reset_optimizer(self):
        self.opt = torch.optim.Adam(self.model.parameters(), lr=1e-4)

    def fit(self, n):
        for epoch in range(n):
            for x, y in self.loader:
                self.opt.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.opt.step()
            self.sched.step()


learn = Learner(model, loader, 1e-3)
learn.fit(10)
learn.reset_optimizer()
torch.save(learn.model.state_dict(), "model.pt")
""",
    # each call of finetune() builds its own optimizer and scheduler
    "finetune_function_twice": """def finetune(model, loader, lr):
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    scheduler = StepLR(optimizer, step_size=3, gamma=0.5)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        scheduler.step()


finetune(model, loader, 1e-3)
for p in model.parameters():
    p.requires_grad = True
finetune(model, loader, 1e-4)
""",
    # the class from torch.optim built again, and the scheduler with it
    "class_from_torch_optim_with_scheduler": """optimizer_class = getattr(torch.optim, "AdamW")
optimizer = optimizer_class(model[2].parameters(), lr=1e-3)
scheduler = CosineAnnealingLR(optimizer, T_max=epochs)
for epoch in range(epochs):
    if epoch == freeze_epochs:
        optimizer = optimizer_class(model.parameters(), lr=1e-4)
        scheduler = CosineAnnealingLR(optimizer, T_max=epochs - freeze_epochs)
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    scheduler.step()
""",
    # a project wrapper handed the optimizer (and the parameters): the same param_groups
    "project_wrapper_of_the_optimizer": """from project_optim import GradientCentralization
optimizer_class = getattr(torch.optim, "AdamW")
optimizer = optimizer_class(model.parameters(), lr=1e-3)
scheduler = CosineAnnealingLR(optimizer, T_max=epochs)
optimizer = GradientCentralization(optimizer, model.parameters())
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    scheduler.step()
""",
    # Lookahead wraps the optimizer the scheduler drives and shares its param_groups
    "lookahead_on_the_base": """from torch_optimizer import Lookahead
base = torch.optim.Adam(model.parameters(), lr=1e-3)
scheduler = StepLR(base, step_size=5, gamma=0.5)
optimizer = Lookahead(base, k=5, alpha=0.5)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    scheduler.step()
""",
    # the same, the wrapper bound to the optimizer's name
    "lookahead_rebinds_the_name": """from torch_optimizer import Lookahead
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
scheduler = StepLR(optimizer, step_size=5, gamma=0.5)
optimizer = Lookahead(optimizer, k=5, alpha=0.5)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    scheduler.step()
""",
    # torchcontrib's SWA wraps the optimizer, its param_groups are the wrapped one's
    "torchcontrib_swa_wrapper": """from torchcontrib.optim import SWA
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = StepLR(optimizer, step_size=5, gamma=0.5)
optimizer = SWA(optimizer, swa_start=10, swa_freq=5, swa_lr=0.05)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    scheduler.step()
""",
}


@pytest.mark.parametrize("name", sorted(BUGS))
def test_stale_optimizer_is_reported(name: str) -> None:
    assert "LRD014" in codes(HEADER + BUGS[name])


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_correct_twin_is_left_alone(name: str) -> None:
    assert "LRD014" not in codes(HEADER + CORRECT[name])
