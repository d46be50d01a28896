"""Shapes behind the dev false alarm of the fresh-2026-12yy batch (rcnew71, bench/realcode/README.md).

Programs written for these tests; no third-party code.

- A MultiStepLR whose milestones are a setting named after the decays (``lr_decay_steps``,
  default ``(60, 80)``) copied into a list (``list(self.lr_decay_steps)``) or parsed from the
  setting's text (``ast.literal_eval(args.lr_decay_steps)``), stepped once per epoch. The word
  "steps" there is the scheduler's own word (the steps of a step decay), which lrdoctor already
  read so for ``milestones=self.lr_decay_steps``; through the copy it read the name without
  that echo and took it as a count of batches (LRD003, a false alarm). Python: ``list()`` and
  ``literal_eval`` hand MultiStepLR the same numbers the setting holds. Found twins: the same
  copies of a name that does name batches (``lr_decay_iters``), stepped once per epoch.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, project_codes

COPIED_MILESTONES = """
import torch
import torch.nn.functional as F
from torch.optim.lr_scheduler import MultiStepLR


class DepthFitter:
    def __init__(self, net, pairs, epochs=90, lr=2e-4, lr_decay_steps=(60, 80)):
        self.net = net
        self.pairs = pairs
        self.epochs = epochs
        self.lr_decay_steps = lr_decay_steps
        self.opt = torch.optim.Adam(net.parameters(), lr=lr)
        self.decay = MultiStepLR(self.opt, list(self.lr_decay_steps), gamma=0.5)

    def one_epoch(self):
        for image, depth in self.pairs:
            self.opt.zero_grad()
            loss = F.l1_loss(self.net(image), depth)
            loss.backward()
            self.opt.step()

    def fit(self):
        for self.epoch in range(self.epochs):
            self.one_epoch()
            self.decay.step()
"""

PARSED_MILESTONES = """
import argparse
import ast

import torch
import torch.nn.functional as F
from torch.optim.lr_scheduler import MultiStepLR

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=90)
parser.add_argument("--lr_decay_steps", type=str, default="(60, 80)")
args = parser.parse_args()


def fit(net, pairs):
    opt = torch.optim.Adam(net.parameters(), lr=2e-4)
    decay = MultiStepLR(opt, sorted(ast.literal_eval(args.lr_decay_steps)), gamma=0.5)
    for epoch in range(args.epochs):
        for image, depth in pairs:
            opt.zero_grad()
            loss = F.l1_loss(net(image), depth)
            loss.backward()
            opt.step()
        decay.step()
"""


def test_milestones_copied_from_a_decay_steps_setting_are_epochs() -> None:
    assert "LRD003" not in codes(COPIED_MILESTONES)


def test_milestones_copied_from_an_iterations_setting_are_batches() -> None:
    source = COPIED_MILESTONES.replace("lr_decay_steps", "lr_decay_iters")
    assert "LRD003" in codes(source)


def test_milestones_parsed_from_a_decay_steps_option_are_epochs() -> None:
    assert "LRD003" not in codes(PARSED_MILESTONES)


def test_milestones_parsed_from_an_iterations_option_are_batches() -> None:
    source = PARSED_MILESTONES.replace("lr_decay_steps", "lr_decay_iters")
    assert "LRD003" in codes(source)


def test_the_copy_is_read_through_a_subclass_and_its_driver(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the base class stores the parameter; a subclass forwards it, and the driver fills it
    # with the option's text parsed by literal_eval
    driver = """
        import ast

        from fitting.kitti import KittiFitter


        def main(net, pairs, epochs=90, lr_decay_steps="(60, 80)"):
            fitter = KittiFitter(net, pairs, epochs=epochs,
                                 lr_decay_steps=ast.literal_eval(lr_decay_steps))
            fitter.fit()
    """
    subclass = """
        from fitting.base import DepthFitter


        class KittiFitter(DepthFitter):
            def __init__(self, net, pairs, epochs=90, lr_decay_steps=(60, 80)):
                super().__init__(net, pairs, epochs=epochs, lr_decay_steps=lr_decay_steps)
    """
    files = {"fitting/__init__.py": "", "fitting/base.py": COPIED_MILESTONES,
             "fitting/kitti.py": subclass, "scripts/fit_kitti.py": driver}
    assert "LRD003" not in project_codes(check_project(tmp_path, monkeypatch, files))
