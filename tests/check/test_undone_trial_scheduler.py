"""A scheduler that lives only inside a trial the function undoes has no state to checkpoint.

An LR range test (and any trial run like it) saves the optimizer's state on the way in, sweeps
the LR with a scheduler kept in a local name, then loads the saved state back before it
returns: nothing of that scheduler survives the call, so a checkpoint elsewhere in the program
that omits it loses nothing (LRD007 reported it, naming the sweep's LambdaLR). Found in
fphunt40's scan (a course's trainer class with an `lr_range_test` method). A scheduler the
function hands back or keeps on the object, or a trial that does not restore the optimizer, is
still judged as before; so is the trainer's own scheduler beside the trial.

Programs written for these tests; no third-party code.
"""

from __future__ import annotations

from .helpers import codes, messages

TRAINER = '''
from copy import deepcopy

import torch
from torch.optim.lr_scheduler import LambdaLR


class Trainer:
    def __init__(self, model, loss_fn, optimizer):
        self.model = model
        self.loss_fn = loss_fn
        self.optimizer = optimizer
        self.epochs = 0

    def train(self, loader, n_epochs):
        for epoch in range(n_epochs):
            self.epochs += 1
            for x, y in loader:
                loss = self.loss_fn(self.model(x), y)
                loss.backward()
                self.optimizer.step()
                self.optimizer.zero_grad()

    def save(self, path):
        torch.save({"epoch": self.epochs, "model": self.model.state_dict(),
                    "optimizer": self.optimizer.state_dict()}, path)

    def load(self, path):
        state = torch.load(path)
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.epochs = state["epoch"]

    def sweep(self, loader, end_lr, num_iter=100):
        saved = {"model": deepcopy(self.model.state_dict()),
                 "optimizer": deepcopy(self.optimizer.state_dict())}
        start_lr = self.optimizer.param_groups[0]["lr"]
        factor = (end_lr / start_lr) ** (1 / num_iter)
        trial = LambdaLR(self.optimizer, lr_lambda=lambda it: factor ** it)
        losses = []
        for i, (x, y) in enumerate(loader):
            loss = self.loss_fn(self.model(x), y)
            loss.backward()
            losses.append(loss.item())
            self.optimizer.step()
            trial.step()
            self.optimizer.zero_grad()
            if i + 1 == num_iter:
                break
        RESTORE
        self.model.load_state_dict(saved["model"])
        return KEEP
'''


def trainer(restore: str = 'self.optimizer.load_state_dict(saved["optimizer"])',
            keep: str = "losses") -> str:
    return TRAINER.replace("RESTORE", restore).replace("KEEP", keep)


def test_a_range_test_that_restores_the_optimizer_leaves_nothing_to_checkpoint() -> None:
    assert "LRD007" not in codes(trainer())


def test_control_a_trial_that_keeps_the_optimizer_state_is_still_judged() -> None:
    found = codes(trainer(restore="pass"))
    assert "LRD007" in found


def test_control_a_scheduler_handed_back_to_the_caller_is_still_judged() -> None:
    assert "LRD007" in codes(trainer(keep="losses, trial"))


def test_control_a_scheduler_kept_on_the_object_is_still_judged() -> None:
    source = trainer().replace("            trial.step()\n",
                               "            trial.step()\n            self.scheduler = trial\n")
    assert "LRD007" in codes(source)


def test_the_trainers_own_scheduler_beside_the_trial_is_still_reported() -> None:
    source = trainer().replace(
        "        self.epochs = 0\n",
        "        self.epochs = 0\n"
        "        self.scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10)\n").replace(
        "                self.optimizer.zero_grad()\n\n    def save",
        "                self.optimizer.zero_grad()\n            self.scheduler.step()\n\n    def save")
    assert "LRD007" in codes(source)
    assert any("StepLR" in m for m in messages(source))


def test_control_a_resume_in_the_function_that_builds_the_scheduler_is_no_undo() -> None:
    # `optimizer.load_state_dict(checkpoint["optimizer"])` puts back a saved run, not the state
    # the function saved on the way in
    source = '''
import torch


def main(model, loader, args):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[30, 60])
    start_epoch = 0
    if args.resume:
        checkpoint = torch.load(args.resume)
        model.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        start_epoch = checkpoint["epoch"]
    for epoch in range(start_epoch, 90):
        for x in loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
        scheduler.step()
'''
    assert codes(source) == ["LRD007"]
