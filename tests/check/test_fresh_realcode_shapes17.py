"""Shapes met in the fresh-2026-12u batch of real code (issue 7), written in our own words.

An EEG trainer of the batch builds its optimizer and an optional scheduler in a helper that
returns ``optimizer, scheduler`` when a setting asks for one and ``optimizer, None``
otherwise; the trainer unpacks the pair into ``self.optimizer, self.scheduler`` and steps
``self.scheduler.step() if self.scheduler else None``. lrdoctor took a function's value from
its last ``return`` only, so the ``None`` of the fallback path hid the scheduler: the real
case (stepped once per epoch) was silent for the wrong reason, and the same helper with the
step put in the batch loop went unreported.

What a call returns is now read over all of the function's returns, as the value of a name
is read after an ``if`` that binds it on both sides: a None returned on one path has nothing
to track and never hides the object another path returns; tuples of one length are read
position by position; schedulers returned on different paths are one of them, whichever the
setting picks (a finding on an option built in the ``else`` of an inner test names that
test too). The controls keep the right spellings silent (the step once per epoch, a
batch-sized schedule stepped per batch, a helper that never builds a scheduler).
"""

from __future__ import annotations

from tests.check.helpers import codes, findings, messages

_PAIR_HELPER = """
import torch
import torch.optim as optim


def set_optimizer(args, net):
    optimizer = optim.Adam(net.parameters(), lr=args.lr)
    if args.scheduler:
        if args.scheduler == "exp":
            scheduler = optim.lr_scheduler.ExponentialLR(optimizer, gamma=args.gamma)
        else:
            scheduler = optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
        return optimizer, scheduler
    return optimizer, None


class Solver:
    def __init__(self, args, net, loader):
        self.args = args
        self.net = net
        self.loader = loader
        self.optimizer, self.scheduler = set_optimizer(args, net)

    def train(self):
        for x, y in self.loader:
            self.optimizer.zero_grad()
            loss = self.net(x).sum()
            loss.backward()
            self.optimizer.step()
{IN_BATCH}
    def experiment(self):
        for epoch in range(1, self.args.epochs + 1):
            self.train()
{PER_EPOCH}            if epoch % 50 == 0:
                torch.save({
                    "epoch": epoch,
                    "net": self.net.state_dict(),
                    "optimizer": self.optimizer.state_dict(),
                    "scheduler": self.scheduler.state_dict() if self.scheduler else None,
                }, "checkpoint.tar")
"""

_STEP = "self.scheduler.step() if self.scheduler else None"


def _pair(in_batch: bool) -> str:
    return (_PAIR_HELPER
            .replace("{IN_BATCH}", f"            {_STEP}\n" if in_batch else "")
            .replace("{PER_EPOCH}", "" if in_batch else f"            {_STEP}\n"))


def test_scheduler_or_none_pair_stepped_per_batch_is_lrd002() -> None:
    source = _pair(in_batch=True)
    assert ("LRD002", 30) in findings(source)
    message = next(m for m in messages(source) if "CosineAnnealingLR" in m)
    assert "T_max=args.epochs" in message
    # the cosine is the `else` of the inner test: the message names both settings
    assert message.startswith("When `args.scheduler and args.scheduler != 'exp'`")


def test_scheduler_or_none_pair_stepped_per_epoch_is_silent() -> None:
    # the real case: the helper's scheduler stepped once per epoch, saved with the optimizer
    assert codes(_pair(in_batch=False)) == []


_SINGLE = """
import torch


def build_scheduler(optimizer, cfg):
    if cfg.scheduler == "cosine":
        return torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max={HORIZON})
    return None


def main(model, loader, cfg):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = build_scheduler(optimizer, cfg)
    for epoch in range(cfg.epochs):
        for x, y in loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
            if scheduler is not None:
                scheduler.step()
"""


def test_scheduler_returned_on_one_path_and_none_on_the_other_is_kept() -> None:
    source = _SINGLE.replace("{HORIZON}", "cfg.epochs")
    assert findings(source) == [("LRD002", 20)]


def test_batch_sized_scheduler_or_none_stepped_per_batch_is_silent() -> None:
    assert codes(_SINGLE.replace("{HORIZON}", "cfg.epochs * len(loader)")) == []


_CHOICE = """
import torch


def build(model, cfg):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    if cfg.scheduler == "cosine":
        return optimizer, torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max={HORIZON})
    elif cfg.scheduler == "onecycle":
        return optimizer, torch.optim.lr_scheduler.OneCycleLR(
            optimizer, max_lr=0.1, total_steps=cfg.epochs * len(cfg.loader))
    return optimizer, None


def main(model, cfg):
    optimizer, scheduler = build(model, cfg)
    for epoch in range(cfg.epochs):
        for x, y in cfg.loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
            if scheduler:
                scheduler.step()
"""


def test_schedulers_returned_per_setting_are_each_an_option() -> None:
    source = _CHOICE.replace("{HORIZON}", "cfg.epochs")
    assert findings(source) == [("LRD002", 23)]
    # the finding names the setting that picks the epoch-sized option
    assert any("cfg.scheduler == 'cosine'" in m for m in messages(source))


def test_schedulers_returned_per_setting_all_batch_sized_are_silent() -> None:
    assert codes(_CHOICE.replace("{HORIZON}", "cfg.epochs * len(cfg.loader)")) == []


_NO_SCHEDULER = """
import torch


def build(model, cfg):
    if cfg.optim == "sgd":
        return torch.optim.SGD(model.parameters(), lr=0.1), None
    return torch.optim.Adam(model.parameters(), lr=1e-3), None


def main(model, loader, cfg):
    optimizer, scheduler = build(model, cfg)
    for epoch in range(cfg.epochs):
        for x, y in loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
            if scheduler is not None:
                scheduler.step()
"""


def test_helper_that_never_builds_a_scheduler_stays_silent() -> None:
    assert codes(_NO_SCHEDULER) == []


_SCALER_OR_NONE = """
import torch


def make_scaler(cfg):
    if cfg.amp:
        return torch.amp.GradScaler("cuda")
    return None


def main(model, loader, cfg):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=1e-3, total_steps=cfg.epochs * len(loader))
    scaler = make_scaler(cfg)
    for epoch in range(cfg.epochs):
        for x, y in loader:
            optimizer.zero_grad()
            with torch.autocast("cuda", enabled=cfg.amp):
                loss = model(x).sum()
            if scaler is not None:
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
            else:
                loss.backward()
                optimizer.step()
            scheduler.step()
{SAVE}"""


def test_scaler_or_none_from_a_helper_is_tracked_for_the_checkpoint() -> None:
    # a scaler a helper returns on the AMP path is the object the run steps: a resumable
    # checkpoint without its state is LRD007, one with it is complete
    partial = _SCALER_OR_NONE.replace("{SAVE}", (
        "        torch.save({'model': model.state_dict(), 'optimizer': optimizer.state_dict(),\n"
        "                    'scheduler': scheduler.state_dict(), 'epoch': epoch}, 'last.pt')\n"))
    complete = _SCALER_OR_NONE.replace("{SAVE}", (
        "        torch.save({'model': model.state_dict(), 'optimizer': optimizer.state_dict(),\n"
        "                    'scheduler': scheduler.state_dict(), 'epoch': epoch,\n"
        "                    'scaler': scaler.state_dict() if scaler is not None else None},\n"
        "                   'last.pt')\n"))
    assert "LRD007" in codes(partial)
    assert "LRD007" not in codes(complete)
