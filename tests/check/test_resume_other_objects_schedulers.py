"""A resume that restores the trainer's optimizer and fast-forwards its scheduler, in a program
where a loss module holds a discriminator with an optimizer and a scheduler of its own, built
by code lrdoctor does not read (lead60, from RCAN's EDSR-style trainer checked inside its
repository: ``for l in self.loss_module: if hasattr(l, 'scheduler'): l.scheduler.step()``). The
discriminator's ``l.scheduler``, known by name only and built on no optimizer lrdoctor saw, was
taken for the restored optimizer's lost scheduler (a false LRD007). When the restored optimizer
has a scheduler lrdoctor knows, such a stand-in is not its own."""

from __future__ import annotations

from .helpers import codes

PROGRAM = """
import torch
import utility


def make_optimizer(args, model):
    if args.optimizer == "SGD":
        return torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    return torch.optim.Adam(model.parameters(), lr=args.lr)


def make_scheduler(args, optimizer):
    if args.decay_type == "step":
        return torch.optim.lr_scheduler.StepLR(optimizer, step_size=args.lr_decay)
    return torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[200, 400])


class Loss:
    def __init__(self, args, net):
        # the loss terms, an adversarial one among them with its own optimizer and scheduler
        self.loss_module = utility.build_losses(args, net)

    def step(self):
        for l in self.loss_module:
            if hasattr(l, "scheduler"):
                l.scheduler.step()


class Trainer:
    def __init__(self, args, model, loader, loss):
        self.model = model
        self.loader = loader
        self.loss = loss
        self.optimizer = make_optimizer(args, model)
        self.scheduler = make_scheduler(args, self.optimizer)
        if args.load:
            self.optimizer.load_state_dict(torch.load("optimizer.pt"))
{forward}
    def train(self):
        for x, y in self.loader:
            self.optimizer.zero_grad()
            torch.nn.functional.l1_loss(self.model(x), y).backward()
            self.optimizer.step()
        self.scheduler.step()
        self.loss.step()


def main(args, model, loader, net):
    trainer = Trainer(args, model, loader, Loss(args, net))
    for epoch in range(args.epochs):
        trainer.train()
"""


def test_the_trainers_scheduler_fast_forwarded_on_resume_is_silent() -> None:
    src = PROGRAM.format(forward="            for _ in range(args.done):\n"
                                 "                self.scheduler.step()\n")
    assert "LRD007" not in codes(src)


def test_the_trainers_scheduler_left_behind_on_resume_is_still_found() -> None:
    src = PROGRAM.format(forward="")
    assert codes(src).count("LRD007") == 1
