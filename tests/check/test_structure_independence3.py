"""The model of the program holds when the code is laid out as real projects lay it out (issue
7, meta6's structural rewrites): an optimizer built by a builder function, its parameters and
eps handed in by the caller; the eps a trainer class keeps from its constructor; a horizon read
from a LightningModule handed to a builder under another name than `self`; an epoch counter of
a `while` loop told to the scheduler.

Each test writes the program in the rewritten layout (which must give the finding the plain
layout gives) and a correct neighbour that must stay silent."""

from __future__ import annotations

from .helpers import codes

# -- fp16 parameters and Adam's eps through a builder function -----------------------------

BUILDER_HALF = """
import torch

def build_optimizer(params, lr, eps):
    return torch.optim.AdamW(params, lr=lr, eps=eps)

def main(loader, lr=1e-4, adam_eps=1e-8):
    model = torch.nn.Linear(8, 2).half()
    optimizer = build_optimizer(model.parameters(), lr, eps=adam_eps)
    for x, y in loader:
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
"""


def test_fp16_adam_eps_found_through_a_builder_given_the_parameters() -> None:
    assert "LRD102" in codes(BUILDER_HALF)


def test_builder_with_a_float16_safe_eps_is_silent() -> None:
    assert "LRD102" not in codes(BUILDER_HALF.replace("adam_eps=1e-8", "adam_eps=1e-4"))


def test_builder_given_float32_parameters_is_silent() -> None:
    assert "LRD102" not in codes(BUILDER_HALF.replace(".half()", ""))


def test_builder_given_the_eps_as_a_literal_is_followed() -> None:
    src = BUILDER_HALF.replace("eps=adam_eps)", "eps=1e-8)")
    assert "LRD102" in codes(src)
    assert "LRD102" not in codes(src.replace("eps=1e-8)", "eps=1e-3)"))


# -- the eps a trainer class keeps from its constructor -------------------------------------

TRAINER_HALF = """
import torch

class Trainer:
    def __init__(self, loader, lr=1e-4, adam_epsilon=1e-8):
        self.loader = loader
        self.lr = lr
        self.adam_epsilon = adam_epsilon

    def run(self):
        self.model = torch.nn.Linear(8, 2)
        self.model.to("cuda", dtype=torch.float16)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=self.lr,
                                          eps=self.adam_epsilon)
        for x, y in self.loader:
            loss = self.model(x).sum()
            loss.backward()
            self.optimizer.step()
            self.optimizer.zero_grad()

def main(loader):
    Trainer(loader).run()
"""


def test_fp16_adam_eps_kept_by_the_trainers_constructor_is_found() -> None:
    assert "LRD102" in codes(TRAINER_HALF)


def test_trainer_keeping_a_safe_eps_is_silent() -> None:
    assert "LRD102" not in codes(TRAINER_HALF.replace("adam_epsilon=1e-8", "adam_epsilon=1e-4"))


def test_trainer_whose_eps_is_changed_elsewhere_in_the_class_is_not_read_as_the_default() -> None:
    # the default is not what reaches the optimizer when another method sets the attribute
    src = TRAINER_HALF.replace("    def run(self):",
                               "    def configure(self, eps):\n"
                               "        self.adam_epsilon = eps\n\n"
                               "    def run(self):")
    assert "LRD102" not in codes(src)


# -- a LightningModule handed to a builder: its documented horizon --------------------------

LIGHTNING_BUILDER = '''
import torch
import transformers
import pytorch_lightning as pl

def build_optimization(module):
    optimizer = torch.optim.AdamW(module.parameters(), lr=module.hparams.lr)
    scheduler = transformers.get_cosine_schedule_with_warmup(
        optimizer, num_warmup_steps=module.hparams.warm_steps,
        num_training_steps=module.hparams.total_steps)
    return optimizer, scheduler

class Distiller(pl.LightningModule):
    def __init__(self, lr: float = 1e-4, warm_steps: int = 10, total_steps: int = 200):
        """
        :param warm_steps: the number of warm-up epochs
        :param total_steps: the total epochs of training
        """
        super().__init__()
        self.save_hyperparameters()
        self.net = torch.nn.Linear(8, 2)

    def training_step(self, batch, batch_idx):
        return self.net(batch).sum()

    def configure_optimizers(self):
        optimizer, scheduler = build_optimization(self)
        return [optimizer], [scheduler]
'''


def test_horizon_documented_in_epochs_is_read_through_a_builder_given_the_module() -> None:
    # stepped once per epoch by Lightning, sized in epochs as the class documents: correct
    assert "LRD003" not in codes(LIGHTNING_BUILDER)


def test_undocumented_step_horizon_through_the_builder_is_still_reported() -> None:
    src = LIGHTNING_BUILDER.replace(
        '''        """
        :param warm_steps: the number of warm-up epochs
        :param total_steps: the total epochs of training
        """
''', "")
    assert "LRD003" in codes(src)


# -- the epoch counter of a while loop, told to the scheduler --------------------------------

WHILE_EPOCHS = """
import torch

def train(model, loader, num_epochs=90):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
    epoch = 1
    while epoch < num_epochs:
        scheduler.step(epoch)
        for x, y in loader:
            loss = model(x).sum()
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        epoch += 1
"""


def test_while_counter_told_to_the_scheduler_before_the_updates_is_found() -> None:
    assert "LRD001" in codes(WHILE_EPOCHS)
    # the same program as a for loop (the control)
    plain = WHILE_EPOCHS.replace("    epoch = 1\n    while epoch < num_epochs:",
                                 "    for epoch in range(1, num_epochs):")
    assert "LRD001" in codes(plain.replace("        epoch += 1\n", ""))


def test_while_counter_starting_at_zero_skips_nothing() -> None:
    assert "LRD001" not in codes(WHILE_EPOCHS.replace("epoch = 1", "epoch = 0"))


def test_while_counter_bound_by_something_else_than_an_assignment_is_not_guessed() -> None:
    src = WHILE_EPOCHS.replace("    epoch = 1\n", "    for epoch in [1]:\n        pass\n")
    assert "LRD001" not in codes(src)


# -- a setting or a literal handed to a scheduler builder ------------------------------------

SETTING_BUILDER = """
import argparse
import torch

def build_scheduler(optimizer, step_size, gamma):
    return torch.optim.lr_scheduler.StepLR(optimizer, step_size=step_size, gamma=gamma)

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--step_size", type=int, default=10)
    parser.add_argument("--gamma", type=float, default=0.5)
    parser.add_argument("--epochs", type=int, default=100)
    args = parser.parse_args()
    model = torch.nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = build_scheduler(optimizer, args.step_size, gamma=args.gamma)
    loader = torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=8)
    for epoch in range(args.epochs):
        for x in loader:
            loss = model(x).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
"""


def test_epoch_horizon_from_a_setting_passed_to_a_builder_is_found_per_batch() -> None:
    assert "LRD002" in codes(SETTING_BUILDER)


def test_builder_scheduler_stepped_per_epoch_is_silent() -> None:
    src = SETTING_BUILDER.replace("            scheduler.step()\n", "") + \
        "        scheduler.step()\n"
    assert "LRD002" not in codes(src)


PLATEAU_BUILDER = """
import torch

def make_plateau(optimizer, mode, patience):
    return torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode, patience=patience)

def evaluate(model, loader):
    return sum(model(x).sum().item() for x in loader)

def main(model, train_loader, val_loader, epochs=10):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = make_plateau(optimizer, "max", 5)
    for epoch in range(epochs):
        for x in train_loader:
            loss = model(x).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        val_loss = evaluate(model, val_loader)
        scheduler.step(val_loss)
"""


def test_plateau_mode_given_to_a_builder_against_a_loss_is_found() -> None:
    assert "LRD004" in codes(PLATEAU_BUILDER)


def test_plateau_mode_min_given_to_a_builder_is_silent() -> None:
    assert "LRD004" not in codes(PLATEAU_BUILDER.replace('"max", 5', '"min", 5'))
