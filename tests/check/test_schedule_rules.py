"""LR-schedule rules on the situations users write: per-batch vs per-epoch stepping, order,
plateau metrics, accumulation, competing and stale schedulers."""

from __future__ import annotations

from tests.check.helpers import codes, findings, messages

HEADER = """
import torch
from torch.utils.data import DataLoader
model = torch.nn.Linear(4, 1)
loader = DataLoader(list(range(64)), batch_size=8)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
"""


def script(body: str) -> str:
    return HEADER + body


# -- LRD002: epoch-sized scheduler stepped per batch ------------------------------------------


def test_steplr_stepped_per_batch_is_reported() -> None:
    src = script("""
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=7, gamma=0.1)
for epoch in range(10):
    for x in loader:
        optimizer.step()
        scheduler.step()
""")
    assert findings(src) == [("LRD002", 12)]
    assert "StepLR(step_size=7)" in messages(src)[0]
    assert "batch loop over `loader` (line 10)" in messages(src)[0]


def test_steplr_sized_in_batches_stepped_per_batch_is_fine() -> None:
    src = script("""
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2 * len(loader))
for epoch in range(10):
    for x in loader:
        optimizer.step()
        scheduler.step()
""")
    assert codes(src) == []


def test_cosine_with_t_max_epochs_stepped_per_batch_is_reported() -> None:
    src = script("""
epochs = 90
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
for epoch in range(epochs):
    for i, (x, y) in enumerate(loader):
        optimizer.step()
        scheduler.step()
""")
    assert codes(src) == ["LRD002"]
    assert "T_max=epochs" in messages(src)[0]


def test_cosine_with_t_max_in_steps_stepped_per_batch_is_fine() -> None:
    src = script("""
epochs = 90
total_steps = epochs * len(loader)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=total_steps)
for epoch in range(epochs):
    for x in loader:
        optimizer.step()
        scheduler.step()
""")
    assert codes(src) == []


def test_large_literal_horizon_stepped_per_batch_is_not_guessed_about() -> None:
    src = script("""
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=100000)
for epoch in range(3):
    for x in loader:
        optimizer.step()
        scheduler.step()
""")
    assert codes(src) == []


def test_iteration_loop_without_epochs_is_not_judged_from_literals() -> None:
    src = script("""
scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[60, 80])
it = iter(loader)
for step in range(100):
    x = next(it)
    optimizer.step()
    scheduler.step()
""")
    assert codes(src) == []


def test_multisteplr_milestones_in_args_epochs_per_batch_is_reported() -> None:
    src = script("""
import argparse
args = argparse.Namespace(epochs=30)
milestones = [int(args.epochs * 0.5), int(args.epochs * 0.75)]
scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=milestones)
for epoch in range(args.epochs):
    for batch in loader:
        optimizer.step()
        scheduler.step()
""")
    assert codes(src) == ["LRD002"]


def test_exponential_decay_per_batch_is_reported() -> None:
    src = script("""
scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)
for epoch in range(5):
    for x in loader:
        optimizer.step()
        scheduler.step()
""")
    assert codes(src) == ["LRD002"]


def test_plateau_stepped_per_batch_is_reported_as_epoch_patience() -> None:
    src = script("""
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)
for epoch in range(5):
    for x in loader:
        loss = model(x).sum()
        optimizer.step()
        scheduler.step(loss)
""")
    assert codes(src) == ["LRD002"]
    assert "patience=10" in messages(src)[0]


# -- LRD003: batch-sized scheduler stepped per epoch ------------------------------------------


def test_onecycle_stepped_per_epoch_is_reported() -> None:
    src = script("""
scheduler = torch.optim.lr_scheduler.OneCycleLR(
    optimizer, max_lr=0.1, epochs=10, steps_per_epoch=len(loader))
for epoch in range(10):
    for x in loader:
        optimizer.step()
    scheduler.step()
""")
    assert findings(src) == [("LRD003", 13)]


def test_onecycle_stepped_per_batch_is_fine() -> None:
    src = script("""
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=10 * len(loader))
for epoch in range(10):
    for x in loader:
        optimizer.step()
        scheduler.step()
""")
    assert codes(src) == []


def test_hf_linear_warmup_stepped_per_epoch_is_reported() -> None:
    src = script("""
from transformers import get_linear_schedule_with_warmup
num_training_steps = 3 * len(loader)
scheduler = get_linear_schedule_with_warmup(optimizer, 100, num_training_steps)
for epoch in range(3):
    for batch in loader:
        optimizer.step()
    scheduler.step()
""")
    assert codes(src) == ["LRD003"]


def test_hf_scheduler_sized_in_epochs_stepped_per_epoch_is_fine() -> None:
    src = script("""
from transformers import get_scheduler
num_epochs = 20
scheduler = get_scheduler("cosine", optimizer, num_warmup_steps=2, num_training_steps=num_epochs)
for epoch in range(num_epochs):
    for batch in loader:
        optimizer.step()
    scheduler.step()
""")
    assert codes(src) == []


def test_epoch_loop_found_through_a_called_function() -> None:
    src = script("""
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, 0.1, total_steps=10 * len(loader))

def train_one_epoch(model, loader, optimizer):
    for x in loader:
        optimizer.zero_grad()
        model(x).sum().backward()
        optimizer.step()

for epoch in range(10):
    train_one_epoch(model, loader, optimizer)
    scheduler.step()
""")
    assert codes(src) == ["LRD003"]


def test_scheduler_passed_into_the_batch_function_is_judged_with_the_callers_class() -> None:
    src = script("""
def train_one_epoch(model, loader, optimizer, lr_scheduler):
    for x in loader:
        optimizer.step()
        lr_scheduler.step()

def main():
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 30)
    for epoch in range(90):
        train_one_epoch(model, loader, optimizer, scheduler)

if __name__ == "__main__":
    main()
""")
    assert findings(src) == [("LRD002", 11)]


def test_unknown_scheduler_class_is_not_judged() -> None:
    src = """
def train(model, loader, optimizer, scheduler):
    for epoch in range(10):
        for x in loader:
            optimizer.step()
            scheduler.step()
"""
    assert codes(src) == []


def test_timm_schedulers_step_per_epoch_and_per_update_by_design() -> None:
    src = script("""
from timm.scheduler import create_scheduler
lr_scheduler, num_epochs = create_scheduler(args, optimizer)
num_updates = 0
for epoch in range(num_epochs):
    for x in loader:
        optimizer.step()
        num_updates += 1
        lr_scheduler.step_update(num_updates=num_updates)
    lr_scheduler.step(epoch + 1)
""")
    assert codes(src) == []


# -- Lightning ---------------------------------------------------------------------------------


LIGHTNING = """
import torch
import lightning.pytorch as pl

class Model(pl.LightningModule):
    def configure_optimizers(self):
        optimizer = torch.optim.AdamW(self.parameters(), lr=1e-3)
        scheduler = torch.optim.lr_scheduler.OneCycleLR(
            optimizer, max_lr=1e-3, total_steps=self.trainer.estimated_stepping_batches)
        {ret}
"""


def test_lightning_onecycle_without_interval_step_is_reported() -> None:
    src = LIGHTNING.format(ret="return [optimizer], [scheduler]")
    assert findings(src) == [("LRD003", 10)]


def test_lightning_onecycle_dict_without_interval_is_reported() -> None:
    src = LIGHTNING.format(ret='return {"optimizer": optimizer, "lr_scheduler": scheduler}')
    assert codes(src) == ["LRD003"]


def test_lightning_onecycle_with_interval_step_is_fine() -> None:
    ret = ('return {"optimizer": optimizer, '
           '"lr_scheduler": {"scheduler": scheduler, "interval": "step"}}')
    assert codes(LIGHTNING.format(ret=ret)) == []
    ret = 'return [optimizer], [{"scheduler": scheduler, "interval": "step"}]'
    assert codes(LIGHTNING.format(ret=ret)) == []


def test_lightning_steplr_per_epoch_is_fine_and_per_step_is_reported() -> None:
    src = """
import torch
import pytorch_lightning as pl

class Model(pl.LightningModule):
    def configure_optimizers(self):
        opt = torch.optim.SGD(self.parameters(), lr=0.1)
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=30)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "%s"}}
"""
    assert codes(src % "epoch") == []
    assert codes(src % "step") == ["LRD002"]


# -- LRD001: order -----------------------------------------------------------------------------


def test_scheduler_at_top_of_epoch_loop_is_reported() -> None:
    src = script("""
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 30)
for epoch in range(90):
    scheduler.step()
    for x in loader:
        optimizer.step()
""")
    assert findings(src) == [("LRD001", 10)]


def test_scheduler_before_optimizer_in_batch_loop_is_reported() -> None:
    src = script("""
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, 0.1, total_steps=len(loader))
for x in loader:
    optimizer.zero_grad()
    model(x).sum().backward()
    scheduler.step()
    optimizer.step()
""")
    assert codes(src) == ["LRD001"]


def test_guarded_first_epoch_scheduler_step_is_fine() -> None:
    src = script("""
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 30)
for epoch in range(90):
    if epoch > 0:
        scheduler.step()
    for x in loader:
        optimizer.step()
""")
    assert codes(src) == []


# -- LRD004 ------------------------------------------------------------------------------------


def test_plateau_without_metric_is_reported() -> None:
    src = script("""
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)
for epoch in range(10):
    for x in loader:
        optimizer.step()
    scheduler.step()
""")
    assert codes(src) == ["LRD004"]


def test_plateau_with_training_loss_while_validation_exists_is_reported() -> None:
    src = script("""
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)
def evaluate(model):
    return 0.0
for epoch in range(10):
    train_loss = 0.0
    for x in loader:
        optimizer.step()
    val_loss = evaluate(model)
    scheduler.step(train_loss)
""")
    assert codes(src) == ["LRD004"]
    assert "val_loss" in messages(src)[0]


def test_plateau_with_validation_loss_is_fine() -> None:
    src = script("""
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", patience=3)
for epoch in range(10):
    for x in loader:
        optimizer.step()
    val_loss = 0.5
    scheduler.step(val_loss)
""")
    assert codes(src) == []


def test_plateau_in_max_mode_on_a_loss_is_reported() -> None:
    src = script("""
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, "max")
for epoch in range(10):
    for x in loader:
        optimizer.step()
    scheduler.step(val_loss)
""")
    assert codes(src) == ["LRD004"]


# -- LRD005 ------------------------------------------------------------------------------------


def test_per_batch_scheduler_with_gradscaler_unguarded_is_reported() -> None:
    src = script("""
scaler = torch.amp.GradScaler("cuda")
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, 0.1, total_steps=len(loader))
for x in loader:
    with torch.autocast("cuda"):
        loss = model(x).sum()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    scheduler.step()
""")
    assert codes(src) == ["LRD005"]


def test_disabled_gradscaler_does_not_skip() -> None:
    src = script("""
scaler = torch.amp.GradScaler("cuda", enabled=False)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, 0.1, total_steps=len(loader))
for x in loader:
    scaler.scale(model(x).sum()).backward()
    scaler.step(optimizer)
    scaler.update()
    scheduler.step()
""")
    assert codes(src) == []


# -- LRD006 ------------------------------------------------------------------------------------


def test_step_with_epoch_argument_is_reported_for_torch_schedulers_only() -> None:
    src = script("""
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 30)
head = torch.optim.SGD(model.parameters(), lr=0.1)
warm = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(head, T_0=10)
for epoch in range(90):
    for i, x in enumerate(loader):
        optimizer.step()
        head.step()
        warm.step(epoch + i / len(loader))
    scheduler.step(epoch)
""")
    assert codes(src) == ["LRD006"]


# -- LRD012 / LRD014 / LRD015 / LRD017 ---------------------------------------------------------


def test_lambda_warmup_beside_a_decay_is_reported() -> None:
    src = script("""
warmup = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda e: min(1.0, (e + 1) / 5))
decay = torch.optim.lr_scheduler.StepLR(optimizer, 30)
for epoch in range(90):
    for x in loader:
        optimizer.step()
    warmup.step()
    decay.step()
""")
    assert codes(src) == ["LRD012"]


def test_hf_warmup_beside_a_steplr_is_competing() -> None:
    src = script("""
from transformers import get_linear_schedule_with_warmup
warmup = get_linear_schedule_with_warmup(optimizer, 100, 1000)
decay = torch.optim.lr_scheduler.StepLR(optimizer, 3000)
for epoch in range(3):
    for x in loader:
        optimizer.step()
        warmup.step()
        decay.step()
""")
    assert "LRD012" in codes(src)


def test_chainable_warmup_and_decay_stepped_together_are_silent() -> None:
    # LinearLR and StepLR both multiply the LR in place: back to back they are a ChainedScheduler
    src = script("""
warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1, total_iters=5)
decay = torch.optim.lr_scheduler.StepLR(optimizer, 30)
for epoch in range(90):
    for x in loader:
        optimizer.step()
    warmup.step()
    decay.step()
""")
    assert codes(src) == []


def test_decay_sized_to_start_after_the_warmup_but_stepped_beside_it_is_reported() -> None:
    src = script("""
epochs, warmup_epochs = 100, 5
warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.01, total_iters=warmup_epochs)
decay = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs - warmup_epochs)
for epoch in range(epochs):
    for x in loader:
        optimizer.step()
    warmup.step()
    decay.step()
""")
    assert codes(src) == ["LRD012"]


def test_sequential_lr_is_the_right_way_to_combine() -> None:
    src = script("""
warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1, total_iters=5)
decay = torch.optim.lr_scheduler.StepLR(optimizer, 30)
scheduler = torch.optim.lr_scheduler.SequentialLR(optimizer, [warmup, decay], milestones=[5])
for epoch in range(90):
    for x in loader:
        optimizer.step()
    scheduler.step()
""")
    assert codes(src) == []


def test_hand_off_between_schedulers_in_branches_is_fine() -> None:
    src = script("""
warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1, total_iters=5)
decay = torch.optim.lr_scheduler.StepLR(optimizer, 30)
for epoch in range(90):
    for x in loader:
        optimizer.step()
    if epoch < 5:
        warmup.step()
    else:
        decay.step()
""")
    assert codes(src) == []


def test_rebuilt_optimizer_leaves_scheduler_on_the_old_one() -> None:
    src = script("""
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 10)
for epoch in range(20):
    if epoch == 10:
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for x in loader:
        optimizer.step()
    scheduler.step()
""")
    assert codes(src) == ["LRD014"]


def test_get_lr_for_logging_is_reported() -> None:
    src = script("""
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 10)
for epoch in range(20):
    for x in loader:
        optimizer.step()
    scheduler.step()
    print(scheduler.get_lr())
""")
    assert codes(src) == ["LRD015"]


def test_scheduler_stepped_every_micro_batch_is_reported() -> None:
    src = script("""
accum_steps = 4
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, 0.1, total_steps=len(loader) // 4)
for epoch in range(3):
    for i, x in enumerate(loader):
        model(x).sum().backward()
        if (i + 1) % accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
        scheduler.step()
""")
    assert codes(src) == ["LRD017"]


def test_scheduler_inside_the_accumulation_block_is_fine() -> None:
    # sized to the 3 epochs' updates: `total_steps=len(loader) // 4` alone is one epoch of
    # them, and OneCycleLR raises at the first update of the second epoch (LRD010, see
    # test_fresh_realcode_shapes94.py)
    src = script("""
accum_steps = 4
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, 0.1,
                                                total_steps=3 * (len(loader) // 4))
for epoch in range(3):
    for i, x in enumerate(loader):
        model(x).sum().backward()
        if (i + 1) % accum_steps == 0:
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
""")
    assert codes(src) == []


# -- the model: self attributes, containers, imports -------------------------------------------


def test_trainer_class_with_self_attributes() -> None:
    src = """
import torch
from torch.optim.lr_scheduler import StepLR as Step

class Trainer:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.scheduler = Step(self.optimizer, step_size=5)

    def train_epoch(self):
        for batch in self.loader:
            self.optimizer.zero_grad()
            self.model(batch).sum().backward()
            self.optimizer.step()
            self.scheduler.step()

    def fit(self, epochs):
        for epoch in range(epochs):
            self.train_epoch()
"""
    assert findings(src) == [("LRD002", 17)]


def test_schedulers_held_in_a_dict() -> None:
    src = script("""
schedulers = {"main": torch.optim.lr_scheduler.StepLR(optimizer, step_size=3)}
for epoch in range(10):
    for x in loader:
        optimizer.step()
        for name, sched in schedulers.items():
            sched.step()
""")
    assert codes(src) == ["LRD002"]


def test_accelerate_prepare_keeps_objects() -> None:
    src = script("""
from accelerate import Accelerator
accelerator = Accelerator()
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=10)
model, optimizer, loader, scheduler = accelerator.prepare(model, optimizer, loader, scheduler)
for epoch in range(10):
    for batch in loader:
        with accelerator.accumulate(model):
            accelerator.backward(model(batch).sum())
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
""")
    assert codes(src) == ["LRD002"]


def test_schedulers_held_in_a_list_of_a_trainer() -> None:
    src = """
import torch

class GANTrainer:
    def __init__(self, g, d, loader):
        self.loader = loader
        self.opt_g = torch.optim.Adam(g.parameters(), lr=2e-4)
        self.opt_d = torch.optim.Adam(d.parameters(), lr=2e-4)
        self.schedulers = [
            torch.optim.lr_scheduler.OneCycleLR(self.opt_g, 2e-4, total_steps=len(loader)),
            torch.optim.lr_scheduler.OneCycleLR(self.opt_d, 2e-4, total_steps=len(loader)),
        ]

    def fit(self, epochs):
        for epoch in range(epochs):
            for batch in self.loader:
                self.opt_d.step()
                self.opt_g.step()
            for sched in self.schedulers:
                sched.step()
"""
    assert codes(src) == ["LRD003"]


def test_scheduler_stepped_on_the_last_batch_only_is_not_guessed_about() -> None:
    src = script("""
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=7)
for epoch in range(10):
    for i, x in enumerate(loader):
        optimizer.step()
        if i == len(loader) - 1:
            scheduler.step()
""")
    assert codes(src) == []


def test_scheduler_stepped_with_accumulated_updates_is_still_per_batch() -> None:
    src = script("""
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=7)
for epoch in range(10):
    for i, x in enumerate(loader):
        if (i + 1) % 4 == 0:
            optimizer.step()
            scheduler.step()
""")
    assert codes(src) == ["LRD002"]


def test_optimizer_rebuilt_by_a_helper_called_from_fit_is_reported() -> None:
    src = """
import torch

class Trainer:
    def __init__(self, model, loader):
        self.model, self.loader = model, loader
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, 10)

    def unfreeze(self):
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.01)

    def epoch(self):
        for batch in self.loader:
            self.optimizer.step()
        self.scheduler.step()

    def fit(self):
        for e in range(20):
            if e == 5:
                self.unfreeze()
            self.epoch()
"""
    assert codes(src) == ["LRD014"]


def test_rebuild_in_an_unrelated_method_is_not_guessed_about() -> None:
    src = """
import torch

class Trainer:
    def __init__(self, model, loader):
        self.model, self.loader = model, loader
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, 10)

    def reset_for_evaluation(self):
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.0)

    def fit(self):
        for e in range(20):
            for batch in self.loader:
                self.optimizer.step()
            self.scheduler.step()
"""
    assert codes(src) == []
