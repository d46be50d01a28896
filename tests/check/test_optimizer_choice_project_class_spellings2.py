"""An optimizer chosen by a setting between a torch optimizer and the project's own optimizer
class from another module (`elif cfg["optimizer"] == "rmsprop": optimizer = RMSpropTF(...)`):
whichever the setting picks is the optimizer the loop steps and the scheduler drives, so the
schedule is judged as usual (the last branch must not win and leave the scheduler without
the optimizer it follows)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from lrdoctor.check.engine import check_file

OPTIM_MODULE = """
import torch


class RMSpropTF:
    # the TensorFlow flavour of RMSprop, written without torch's Optimizer base

    def __init__(self, params, lr=0.01, alpha=0.9, eps=1e-10):
        self.param_groups = [dict(params=list(params), lr=lr, alpha=alpha, eps=eps)]

    def zero_grad(self):
        for group in self.param_groups:
            for p in group["params"]:
                p.grad = None

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.add_(p.grad, alpha=-group["lr"])
"""

TRAIN = """
import torch
from tf_port.rmsprop import RMSpropTF


def run_epoch(model, loader, optimizer, epoch, scheduler=None):
    total, steps = len(loader), 0
    for x, y in loader:
        steps += 1
        loss = torch.nn.functional.cross_entropy(model(x), y)
        if optimizer:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        if scheduler is not None:
            scheduler.step({position})


def train(model, loader, cfg):
{choice}
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg["epochs"])
    if cfg["only_eval"]:
        with torch.no_grad():
            run_epoch(model, loader, None, 0)
        return
    for epoch in range(1, cfg["epochs"] + 1):
        run_epoch(model, loader, optimizer, epoch, scheduler=scheduler)
        torch.save({{"epoch": epoch, "model": model.state_dict(),
                    "optimizer": optimizer.state_dict()}}, "ckpt.pth")
"""

CHOICES = {
    "elif_then_raise": """\
    if cfg["optimizer"] == "sgd":
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    elif cfg["optimizer"] == "rmsprop":
        optimizer = RMSpropTF(model.parameters(), lr=0.1)
    else:
        raise ValueError(cfg["optimizer"])""",
    "if_else": """\
    if cfg["optimizer"] == "sgd":
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    else:
        optimizer = RMSpropTF(model.parameters(), lr=0.1)""",
}


def _found(tmp_path: Path, choice: str, position: str) -> list[str]:
    (tmp_path / ".git").mkdir()
    (tmp_path / "tf_port").mkdir()
    (tmp_path / "tf_port" / "__init__.py").write_text("")
    (tmp_path / "tf_port" / "rmsprop.py").write_text(textwrap.dedent(OPTIM_MODULE))
    (tmp_path / "train.py").write_text(TRAIN.format(choice=choice, position=position))
    result = check_file(str(tmp_path / "train.py"))
    assert result.errors == []
    return sorted(d.code for d in result.diagnostics)


@pytest.mark.parametrize("choice", sorted(CHOICES))
def test_epoch_scheduler_stepped_every_batch_with_either_optimizer_is_lrd002(
        tmp_path: Path, choice: str) -> None:
    assert _found(tmp_path, CHOICES[choice], "") == ["LRD002", "LRD007"]


@pytest.mark.parametrize("choice", sorted(CHOICES))
def test_scheduler_stepped_by_position_needs_no_saved_state(tmp_path: Path, choice: str) -> None:
    # the fractional epoch names the position (deprecated, LRD006) and a resume restores it
    assert _found(tmp_path, CHOICES[choice], "epoch - 1 + steps / total") == ["LRD006"]
