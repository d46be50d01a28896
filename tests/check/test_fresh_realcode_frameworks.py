"""Shapes met in the framework/notebook real-code batch of issue 7 (bench/realcode, batch
"fresh-2026-12d", dev half): each test is the general shape in our own words, next to the
control that must still be reported (or stay silent)."""

from __future__ import annotations

from tests.check.helpers import codes, messages

# -- LRD004: a generic name computed from validation results is the validation metric --------

_PLATEAU_HOOK = """
import torch
from pytorch_lightning import LightningModule


class Tagger(LightningModule):
    def configure_optimizers(self):
        self.opt = torch.optim.Adam(self.parameters(), lr=1e-3)
        self.plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(self.opt, mode="min")
        return self.opt

    def training_step(self, batch, batch_idx):
        return {"loss": self.net(batch)}

    def validation_step(self, batch, batch_idx):
        return {"val_loss": self.net(batch)}

    def val_dataloader(self):
        val_set = self.dev_data
        return torch.utils.data.DataLoader(val_set, batch_size=32)

    def validation_epoch_end(self, outputs):
        {mean}
        self.plateau.step(mean_loss)
"""


def test_plateau_on_a_mean_of_validation_outputs_is_silent() -> None:
    source = _PLATEAU_HOOK.replace(
        "{mean}", 'mean_loss = torch.stack([o["val_loss"] for o in outputs]).mean()'
    )
    assert codes(source) == []


def test_plateau_on_a_mean_of_training_outputs_is_still_lrd004() -> None:
    # the same generic name, computed from the training losses: still the training loss
    source = _PLATEAU_HOOK.replace(
        "{mean}", "mean_loss = torch.stack(self.train_losses).mean()"
    )
    assert codes(source) == ["LRD004"]
    assert "training loss" in messages(source)[0]


def test_plateau_on_a_generic_loss_handed_in_is_still_lrd004() -> None:
    # a parameter: what the caller passes is not read here, the name decides as before
    source = """
import torch


def fit(net, opt, train_loader, val_loader, epochs):
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt)
    for epoch in range(epochs):
        total_loss = 0.0
        for x, y in train_loader:
            opt.zero_grad()
            loss = net(x, y)
            loss.backward()
            opt.step()
            total_loss += loss.item()
        val_acc = evaluate(net, val_loader)
        adjust(plateau, total_loss)


def adjust(plateau, total_loss):
    plateau.step(total_loss)
"""
    assert codes(source) == ["LRD004"]


# -- LRD101: the deprecated autocast kept in a variable to be called later ------------------

_KEPT = """
import contextlib
import torch


def build(args, net):
    autocast_ctx = contextlib.nullcontext
    {keep}
    return autocast_ctx


def run(net, batches, autocast_ctx):
    for x in batches:
        with autocast_ctx():
            net(x)
"""


def test_old_autocast_bound_to_a_name_is_lrd101() -> None:
    source = _KEPT.replace("{keep}", "if args.amp:\n        autocast_ctx = torch.cuda.amp.autocast")
    assert codes(source) == ["LRD101"]
    assert "torch.autocast" in messages(source)[0]


def test_old_autocast_in_a_conditional_binding_is_lrd101() -> None:
    source = _KEPT.replace(
        "{keep}",
        "autocast_ctx = torch.cuda.amp.autocast if args.amp else contextlib.nullcontext",
    )
    assert codes(source) == ["LRD101"]


def test_new_autocast_bound_to_a_name_is_silent() -> None:
    source = _KEPT.replace("{keep}", "if args.amp:\n        autocast_ctx = torch.autocast")
    assert codes(source) == []


def test_old_autocast_compared_or_listed_is_silent() -> None:
    # a test of identity and a registry of known callables are not uses
    source = """
import torch

KNOWN = {"old": torch.cuda.amp.autocast, "new": torch.autocast}


def is_old(fn):
    return fn is torch.cuda.amp.autocast
"""
    assert codes(source) == []


def test_old_autocast_bound_in_a_version_fallback_is_silent() -> None:
    source = """
import torch

try:
    from torch.amp import autocast as _new
    amp_ctx = _new
except ImportError:
    amp_ctx = torch.cuda.amp.autocast


def step(net, x):
    with amp_ctx("cuda"):
        return net(x)
"""
    assert codes(source) == []
