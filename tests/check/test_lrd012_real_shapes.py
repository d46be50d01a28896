"""LRD012 (competing schedulers) in the shapes real training code writes it: a warm-up and a
decay stepped side by side with no hand-over, a Hugging Face warm-up beside a plateau or a
StepLR, SWALR beside the main schedule, one scheduler stepped at two loop levels (also through
a helper or a method called from both), schedulers kept in a list or a dict, warm-ups in a
trainer class; and the correct twins a careful reviewer would not report (the `if/else`
hand-over, SequentialLR, ChainedScheduler, schedulers of different optimizers)."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes, messages

HEADER = """import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.optim.lr_scheduler import LambdaLR, LinearLR, CosineAnnealingLR, StepLR, SequentialLR, ChainedScheduler, ReduceLROnPlateau, OneCycleLR
data = TensorDataset(torch.randn(512, 16), torch.randn(512, 1))
loader = DataLoader(data, batch_size=16)
model = torch.nn.Linear(16, 1)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
epochs = 20
warmup_steps = 500
total_steps = epochs * len(loader)
"""

BUGS = {
    "lambda_cos_batch": """
warmup = LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / warmup_steps))
cosine = CosineAnnealingLR(optimizer, T_max=total_steps)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        warmup.step()
        cosine.step()
""",
    "lambda_step_epoch": """
warmup_epochs = 5
warmup = LambdaLR(optimizer, lambda e: min(1.0, (e + 1) / warmup_epochs))
decay = CosineAnnealingLR(optimizer, T_max=epochs)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    warmup.step()
    decay.step()
""",
    "linear_cos_sized_after": """
warmup_epochs = 5
warmup = LinearLR(optimizer, start_factor=0.01, total_iters=warmup_epochs)
decay = CosineAnnealingLR(optimizer, T_max=epochs - warmup_epochs)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    warmup.step()
    decay.step()
""",
    "hf_plateau": """
from transformers import get_linear_schedule_with_warmup
scheduler = get_linear_schedule_with_warmup(optimizer, warmup_steps, total_steps)
plateau = ReduceLROnPlateau(optimizer, mode="min", patience=2)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        scheduler.step()
    val_loss = loss.item()
    plateau.step(val_loss)
""",
    "hf_steplr": """
from transformers import get_cosine_schedule_with_warmup
scheduler = get_cosine_schedule_with_warmup(optimizer, num_warmup_steps=warmup_steps, num_training_steps=total_steps)
step_lr = StepLR(optimizer, step_size=5, gamma=0.1)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        scheduler.step()
    step_lr.step()
""",
    "swa": """
from torch.optim.swa_utils import AveragedModel, SWALR
swa_model = AveragedModel(model)
scheduler = CosineAnnealingLR(optimizer, T_max=epochs)
swa_scheduler = SWALR(optimizer, swa_lr=0.05)
swa_start = 10
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    if epoch > swa_start:
        swa_model.update_parameters(model)
        swa_scheduler.step()
    scheduler.step()
""",
    "helper_two_levels": """
scheduler = get_sched = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3, total_steps=total_steps)
def train_one_epoch(model, loader, optimizer, scheduler):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        scheduler.step()
for epoch in range(epochs):
    train_one_epoch(model, loader, optimizer, scheduler)
    scheduler.step()
""",
    "helper_called_from_both": """
scheduler = CosineAnnealingLR(optimizer, T_max=total_steps)
def advance(sched):
    sched.step()
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        advance(scheduler)
    advance(scheduler)
""",
    "list": """
warmup = LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / warmup_steps))
cosine = CosineAnnealingLR(optimizer, T_max=total_steps)
schedulers = [warmup, cosine]
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        for s in schedulers:
            s.step()
""",
    "class": """
class Trainer:
    def __init__(self, model, loader, cfg):
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"])
        self.warmup_scheduler = LambdaLR(self.optimizer, lambda s: min(1.0, (s + 1) / cfg["warmup"]))
        self.lr_scheduler = CosineAnnealingLR(self.optimizer, T_max=cfg["epochs"])
    def train_epoch(self):
        for x, y in self.loader:
            self.optimizer.zero_grad()
            torch.nn.functional.mse_loss(self.model(x), y).backward()
            self.optimizer.step()
            self.warmup_scheduler.step()
    def fit(self, epochs):
        for epoch in range(epochs):
            self.train_epoch()
            self.lr_scheduler.step()
Trainer(model, loader, {"lr": 1e-3, "warmup": 500, "epochs": epochs}).fit(epochs)
""",
    "onecycle_steplr": """
onecycle = OneCycleLR(optimizer, max_lr=1e-2, epochs=epochs, steps_per_epoch=len(loader))
steplr = StepLR(optimizer, step_size=5)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        onecycle.step()
    steplr.step()
""",
    "dict": """
schedulers = {"warmup": LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / warmup_steps)),
              "decay": StepLR(optimizer, step_size=1000, gamma=0.5)}
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        for name, s in schedulers.items():
            s.step()
""",
    "main_func": """
def build(optimizer, args):
    warmup = LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / args.warmup))
    main = CosineAnnealingLR(optimizer, T_max=args.epochs)
    return warmup, main
def train(args):
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    warmup, main = build(opt, args)
    for epoch in range(args.epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            warmup.step()
        main.step()
if __name__ == "__main__":
    import argparse
    p = argparse.ArgumentParser(); p.add_argument("--lr", type=float, default=0.1); p.add_argument("--epochs", type=int, default=90); p.add_argument("--warmup", type=int, default=500)
    train(p.parse_args())
""",
    "two_level_val": """
from transformers import get_linear_schedule_with_warmup
scheduler = get_linear_schedule_with_warmup(optimizer, warmup_steps, total_steps)
def validate(model, scheduler):
    model.eval()
    scheduler.step()
for epoch in range(epochs):
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        scheduler.step()
    validate(model, scheduler)
""",
    "accum_two_levels": """
from transformers import get_linear_schedule_with_warmup
accum = 4
scheduler = get_linear_schedule_with_warmup(optimizer, warmup_steps, total_steps // accum)
for epoch in range(epochs):
    for i, (x, y) in enumerate(loader):
        loss = torch.nn.functional.mse_loss(model(x), y) / accum
        loss.backward()
        if (i + 1) % accum == 0:
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
    scheduler.step()
""",
    "while_two_levels": """
scheduler = LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / warmup_steps))
epoch = 0
while epoch < epochs:
    it = iter(loader)
    for x, y in it:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        scheduler.step()
    scheduler.step()
    epoch += 1
""",
    "method_two_levels": """
class Trainer:
    def __init__(self, model, loader):
        self.model, self.loader = model, loader
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        self.scheduler = OneCycleLR(self.optimizer, max_lr=1e-3, total_steps=epochs * len(loader))
    def training_step(self, x, y):
        self.optimizer.zero_grad()
        torch.nn.functional.mse_loss(self.model(x), y).backward()
        self.optimizer.step()
        self.scheduler.step()
    def on_epoch_end(self):
        self.scheduler.step()
    def fit(self):
        for epoch in range(epochs):
            for x, y in self.loader:
                self.training_step(x, y)
            self.on_epoch_end()
Trainer(model, loader).fit()
""",
    "plateau_and_cos": """
# warmup lambda per batch; plateau per epoch; args chooses
warmup = LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / warmup_steps))
plateau = ReduceLROnPlateau(optimizer, patience=3)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        warmup.step()
    plateau.step(loss.item())
""",
}

CORRECT = {
    "if_handover": """
warmup = LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / warmup_steps))
cosine = CosineAnnealingLR(optimizer, T_max=total_steps - warmup_steps)
step = 0
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        if step < warmup_steps:
            warmup.step()
        else:
            cosine.step()
        step += 1
""",
    "sequential": """
warmup_epochs = 5
warmup = LinearLR(optimizer, start_factor=0.01, total_iters=warmup_epochs)
decay = CosineAnnealingLR(optimizer, T_max=epochs - warmup_epochs)
sched = SequentialLR(optimizer, [warmup, decay], milestones=[warmup_epochs])
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    sched.step()
""",
    "chained": """
warmup = LinearLR(optimizer, start_factor=0.1, total_iters=5)
decay = StepLR(optimizer, step_size=5, gamma=0.5)
sched = ChainedScheduler([warmup, decay])
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    sched.step()
""",
    "swa": """
from torch.optim.swa_utils import AveragedModel, SWALR
swa_model = AveragedModel(model)
scheduler = CosineAnnealingLR(optimizer, T_max=epochs)
swa_scheduler = SWALR(optimizer, swa_lr=0.05)
swa_start = 10
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    if epoch > swa_start:
        swa_model.update_parameters(model)
        swa_scheduler.step()
    else:
        scheduler.step()
""",
    "list_diff_opts": """
gen = torch.nn.Linear(16, 1)
opt_g = torch.optim.Adam(gen.parameters(), lr=1e-3)
s1 = LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / warmup_steps))
s2 = LambdaLR(opt_g, lambda s: min(1.0, (s + 1) / warmup_steps))
schedulers = [s1, s2]
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad(); opt_g.zero_grad()
        (torch.nn.functional.mse_loss(model(x), y) + torch.nn.functional.mse_loss(gen(x), y)).backward()
        optimizer.step(); opt_g.step()
        for s in schedulers:
            s.step()
""",
    "class_guarded": """
class Trainer:
    def __init__(self, model, loader, cfg):
        self.model = model
        self.loader = loader
        self.warmup = cfg["warmup"]
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"])
        self.warmup_scheduler = LambdaLR(self.optimizer, lambda s: min(1.0, (s + 1) / cfg["warmup"]))
        self.lr_scheduler = CosineAnnealingLR(self.optimizer, T_max=cfg["epochs"])
        self.step = 0
    def train_epoch(self):
        for x, y in self.loader:
            self.optimizer.zero_grad()
            torch.nn.functional.mse_loss(self.model(x), y).backward()
            self.optimizer.step()
            if self.step < self.warmup:
                self.warmup_scheduler.step()
            self.step += 1
    def fit(self, epochs):
        for epoch in range(epochs):
            self.train_epoch()
            if self.step >= self.warmup:
                self.lr_scheduler.step()
Trainer(model, loader, {"lr": 1e-3, "warmup": 500, "epochs": epochs}).fit(epochs)
""",
    "diff_opts": """
disc = torch.nn.Linear(16, 1)
opt_d = torch.optim.Adam(disc.parameters(), lr=1e-3)
warmup = LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / warmup_steps))
cosine = CosineAnnealingLR(opt_d, T_max=total_steps)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad(); opt_d.zero_grad()
        (torch.nn.functional.mse_loss(model(x), y) + torch.nn.functional.mse_loss(disc(x), y)).backward()
        optimizer.step(); opt_d.step()
        warmup.step()
        cosine.step()
""",
    "user_warmup_class": """
from torch.optim.lr_scheduler import _LRScheduler, MultiStepLR
class WarmUpLR(_LRScheduler):
    def __init__(self, optimizer, total_iters, last_epoch=-1):
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)
    def get_lr(self):
        return [base_lr * self.last_epoch / (self.total_iters + 1e-8) for base_lr in self.base_lrs]
train_scheduler = MultiStepLR(optimizer, milestones=[60, 120, 160], gamma=0.2)
warmup_scheduler = WarmUpLR(optimizer, len(loader))
warm = 1
for epoch in range(1, epochs + 1):
    if epoch > warm:
        train_scheduler.step()
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        if epoch <= warm:
            warmup_scheduler.step()
""",
    "gradual_after": """
from warmup_scheduler import GradualWarmupScheduler
cosine = CosineAnnealingLR(optimizer, T_max=epochs)
scheduler = GradualWarmupScheduler(optimizer, multiplier=1, total_epoch=5, after_scheduler=cosine)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    scheduler.step()
""",
}


@pytest.mark.parametrize("name", sorted(BUGS))
def test_competing_schedulers_are_reported(name: str) -> None:
    assert "LRD012" in codes(HEADER + BUGS[name])


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_correct_twin_is_left_alone(name: str) -> None:
    assert "LRD012" not in codes(HEADER + CORRECT[name])


# The project's own warm-up class (a subclass of torch's scheduler base that keeps torch's
# step()): what its get_lr() reads says whether it erases the other scheduler's changes.
PROJECT_WARMUP = """
from torch.optim.lr_scheduler import _LRScheduler, MultiStepLR


class RampUp(_LRScheduler):
    def __init__(self, optimizer, iters, last_epoch=-1):
        self.iters = iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [lr0 * self.last_epoch / (self.iters + 1e-8) for lr0 in self.base_lrs]


class Shrink(_LRScheduler):
    def get_lr(self):
        return [group["lr"] * 0.99 for group in self.optimizer.param_groups]


class OwnStep(_LRScheduler):
    def get_lr(self):
        return [lr0 * 0.5 for lr0 in self.base_lrs]

    def step(self, epoch=None):
        for group, lr0 in zip(self.optimizer.param_groups, self.base_lrs):
            group["lr"] = lr0
"""

PROJECT_LOOP = """
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        ramp.step()
    decay.step()
"""


def test_project_warmup_computed_from_base_lrs_beside_a_decay_is_reported() -> None:
    src = HEADER + PROJECT_WARMUP + """
decay = MultiStepLR(optimizer, milestones=[8, 16], gamma=0.2)
ramp = RampUp(optimizer, len(loader))
""" + PROJECT_LOOP
    assert codes(src).count("LRD012") == 1
    message = next(m for m in messages(src) if "both step" in m)
    assert message.startswith("RampUp `ramp`")
    assert "RampUp recomputes the LR from its base value" in message


def test_project_warmup_computed_from_base_lrs_beside_a_plateau_is_reported() -> None:
    src = HEADER + PROJECT_WARMUP + """
plateau = ReduceLROnPlateau(optimizer, patience=2)
ramp = RampUp(optimizer, len(loader))
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        ramp.step()
    plateau.step(loss.item())
"""
    assert "LRD012" in codes(src)


def test_control_project_warmup_handing_over_by_epoch_is_left_alone() -> None:
    src = HEADER + PROJECT_WARMUP + """
decay = MultiStepLR(optimizer, milestones=[8, 16], gamma=0.2)
ramp = RampUp(optimizer, len(loader))
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        if epoch == 0:
            ramp.step()
    if epoch > 0:
        decay.step()
"""
    assert "LRD012" not in codes(src)


def test_control_project_scheduler_that_scales_the_current_lr_composes() -> None:
    src = HEADER + PROJECT_WARMUP + """
decay = MultiStepLR(optimizer, milestones=[8, 16], gamma=0.2)
ramp = Shrink(optimizer)
""" + PROJECT_LOOP
    assert "LRD012" not in codes(src)


def test_control_project_scheduler_with_a_step_of_its_own_is_not_judged() -> None:
    src = HEADER + PROJECT_WARMUP + """
decay = MultiStepLR(optimizer, milestones=[8, 16], gamma=0.2)
ramp = OwnStep(optimizer)
""" + PROJECT_LOOP
    assert "LRD012" not in codes(src)


def test_control_project_warmup_on_another_optimizer_is_left_alone() -> None:
    src = HEADER + PROJECT_WARMUP + """
head = torch.nn.Linear(16, 1)
head_opt = torch.optim.SGD(head.parameters(), lr=0.1)
decay = MultiStepLR(optimizer, milestones=[8, 16], gamma=0.2)
ramp = RampUp(head_opt, len(loader))
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        head_opt.zero_grad()
        (torch.nn.functional.mse_loss(model(x), y) + head(x).sum()).backward()
        optimizer.step()
        head_opt.step()
        ramp.step()
    decay.step()
"""
    assert "LRD012" not in codes(src)


def test_scheduler_of_an_unknown_wrapper_is_named_in_the_message() -> None:
    src = HEADER + """
from warmup_scheduler import GradualWarmupScheduler
cosine = CosineAnnealingLR(optimizer, T_max=epochs)
scheduler = GradualWarmupScheduler(optimizer, multiplier=1, total_epoch=5, after_scheduler=cosine)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    scheduler.step()
    cosine.step()
"""
    message = next(m for m in messages(src) if "is one of the schedulers" in m)
    assert "of scheduler `scheduler`" in message


# A warm-up that recomputes the LR and is never stopped, beside a decay stepped only once the
# warm-up is over (or a plateau stepped every other epoch): each decay is erased at the
# warm-up's next step, so the run trains at the base LR to the end.
ERASER_NEVER_STOPPED = {
    "lambda_warmup_beside_a_guarded_steplr": """
warmup_epochs = 1
warmup = LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / len(loader)))
decay = StepLR(optimizer, step_size=5, gamma=0.1)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        warmup.step()
    if epoch >= warmup_epochs:
        decay.step()
""",
    "hf_warmup_beside_a_guarded_plateau": """
from transformers import get_linear_schedule_with_warmup
scheduler = get_linear_schedule_with_warmup(optimizer, warmup_steps, total_steps)
plateau = ReduceLROnPlateau(optimizer, mode="min", patience=2)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        scheduler.step()
    if epoch % 2 == 0:
        plateau.step(loss.item())
""",
}


@pytest.mark.parametrize("name", sorted(ERASER_NEVER_STOPPED))
def test_eraser_on_every_pass_beside_a_guarded_decay_is_reported(name: str) -> None:
    assert "LRD012" in codes(HEADER + ERASER_NEVER_STOPPED[name])


def test_control_warmup_stopped_when_the_decay_takes_over_is_left_alone() -> None:
    src = HEADER + """
warmup_epochs = 1
warmup = LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / len(loader)))
decay = StepLR(optimizer, step_size=5, gamma=0.1)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        if epoch < warmup_epochs:
            warmup.step()
    if epoch >= warmup_epochs:
        decay.step()
"""
    assert "LRD012" not in codes(src)


def test_control_warmup_stepped_only_early_beside_a_decay_on_every_pass_is_left_alone() -> None:
    # the decay's first steps are folded into the ramp; what follows is its own schedule
    # from the warm-up's last LR: arguable, not reported
    src = HEADER + """
warmup_epochs = 5
warmup = LambdaLR(optimizer, lambda e: min(1.0, (e + 1) / warmup_epochs))
decay = CosineAnnealingLR(optimizer, T_max=epochs)
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    if epoch < warmup_epochs:
        warmup.step()
    decay.step()
"""
    assert "LRD012" not in codes(src)
