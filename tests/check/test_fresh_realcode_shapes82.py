"""Shapes behind the dev miss of the fresh-2026-12zh81 batch (rcnew81, bench/realcode/README.md).

Programs written for these tests; no third-party code.

- An iteration loop steps a warm-up poly scheduler after every ``scaler.step(optim)`` of an
  always-on GradScaler. The scheduler's class is imported from a project module that is not
  in the checkout (``from lib.lr_scheduler import WarmupPolyLrScheduler``) or from an
  installed package, and the result is bound to a name that says nothing (``lr_schdr``,
  ``lr_policy``, ``poly``). lrdoctor guessed an unseen builder's result as a scheduler only by
  the name it was bound to, or by a callee spelled ``...lr_sched...``: the class's own name,
  which says it schedules the LR, was not read, so LRD005 (and LRD001 for the same object
  stepped before the update) said nothing. Python: whatever the class is, the program hands it
  the optimizer and steps it once per iteration; a class named for scheduling the LR and given
  the optimizer is an LR scheduler. A class named for something else (a weight-decay
  scheduler, an LR finder), or one not given the optimizer, is not guessed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, project_codes

AMP_POLY_FROM_MISSING_MODULE = """
import torch
import torch.cuda.amp as amp
from lib.lr_scheduler import WarmupPolyLrScheduler


def run(max_iter, batches):
    net = torch.nn.Linear(3, 1)
    optim = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    scaler = amp.GradScaler()
    lr_schdr = WarmupPolyLrScheduler(optim, power=0.9, max_iter=max_iter, warmup_iter=50)
    for it, (im, lb) in enumerate(batches):
        optim.zero_grad()
        with amp.autocast():
            loss = (net(im) - lb).pow(2).mean()
        scaler.scale(loss).backward()
        scaler.step(optim)
        scaler.update()
        lr_schdr.step()
"""


def test_lr_scheduler_class_of_a_missing_module_stepped_after_scaler_step(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {"train.py": AMP_POLY_FROM_MISSING_MODULE})
    assert ("train.py", 19, "LRD005") in found, found


def test_same_with_the_scaler_switched_off_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    off = AMP_POLY_FROM_MISSING_MODULE.replace("amp.GradScaler()", "amp.GradScaler(enabled=False)")
    assert "LRD005" not in project_codes(check_project(tmp_path, monkeypatch, {"train.py": off}))


def test_same_stepped_only_after_a_real_update_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    guarded = AMP_POLY_FROM_MISSING_MODULE.replace(
        "        scaler.step(optim)\n        scaler.update()\n        lr_schdr.step()\n",
        "        scale = scaler.get_scale()\n        scaler.step(optim)\n        scaler.update()\n"
        "        if scaler.get_scale() >= scale:\n            lr_schdr.step()\n")
    assert guarded != AMP_POLY_FROM_MISSING_MODULE
    assert "LRD005" not in project_codes(
        check_project(tmp_path, monkeypatch, {"train.py": guarded}))


PACKAGE_MULTISTEP_FIRST = """
import torch
from detlib.solver.lr_scheduler import WarmupMultiStepLR


def do_train(model, loader, max_iter):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
    lr_policy = WarmupMultiStepLR(optimizer, (60000, 80000), 0.1, warmup_iters=500)
    for iteration, (images, targets) in enumerate(loader):
        lr_policy.step()
        losses = model(images, targets)
        optimizer.zero_grad()
        losses.backward()
        optimizer.step()
        if iteration + 1 == max_iter:
            break
"""


def test_package_multistep_class_stepped_before_the_update(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {"train.py": PACKAGE_MULTISTEP_FIRST})
    assert ("train.py", 10, "LRD001") in found, found


def test_package_multistep_class_stepped_after_the_update_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    after = PACKAGE_MULTISTEP_FIRST.replace(
        "        lr_policy.step()\n        losses = model(images, targets)\n",
        "        losses = model(images, targets)\n").replace(
        "        optimizer.step()\n", "        optimizer.step()\n        lr_policy.step()\n")
    assert after != PACKAGE_MULTISTEP_FIRST
    assert "LRD001" not in project_codes(
        check_project(tmp_path, monkeypatch, {"train.py": after}))


MODULE_ATTRIBUTE_POLY = """
import torch
import lib.schedules as schedules


def fit(net, batches, max_iter):
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    poly = schedules.PolyLR(opt, max_iter=max_iter, power=0.9)
    for step, (x, y) in enumerate(batches):
        poly.step()
        opt.zero_grad()
        torch.nn.functional.mse_loss(net(x), y).backward()
        opt.step()
"""


def test_poly_lr_class_reached_through_a_missing_module_attribute(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {"train.py": MODULE_ATTRIBUTE_POLY})
    assert ("train.py", 10, "LRD001") in found, found


def test_weight_decay_scheduler_of_a_missing_module_is_not_an_lr_scheduler(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wd = MODULE_ATTRIBUTE_POLY.replace("schedules.PolyLR(opt, max_iter=max_iter, power=0.9)",
                                       "schedules.WeightDecayScheduler(opt, start=1e-4, end=1e-2)")
    assert wd != MODULE_ATTRIBUTE_POLY
    assert "LRD001" not in project_codes(check_project(tmp_path, monkeypatch, {"train.py": wd}))


def test_lr_class_not_given_the_optimizer_is_not_guessed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    alone = MODULE_ATTRIBUTE_POLY.replace("schedules.PolyLR(opt, max_iter=max_iter, power=0.9)",
                                          "schedules.PolyLR(max_iter=max_iter, power=0.9)")
    assert alone != MODULE_ATTRIBUTE_POLY
    assert "LRD001" not in project_codes(
        check_project(tmp_path, monkeypatch, {"train.py": alone}))


def test_lr_finder_given_the_optimizer_is_not_a_scheduler(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = """
    import torch
    from lrtools import LRFinder


    def fit(net, batches, epochs):
        opt = torch.optim.SGD(net.parameters(), lr=0.01)
        finder = LRFinder(net, opt, torch.nn.MSELoss())
        finder.range_test(batches, end_lr=1.0, num_iter=100)
        finder.reset()
        for epoch in range(epochs):
            for x, y in batches:
                opt.zero_grad()
                torch.nn.functional.mse_loss(net(x), y).backward()
                opt.step()
            torch.save({"model": net.state_dict(), "optimizer": opt.state_dict(),
                        "epoch": epoch}, "last.pt")
    """
    assert project_codes(check_project(tmp_path, monkeypatch, {"train.py": source})) == []


def test_project_class_that_is_seen_is_read_as_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the module is in the checkout: its class (no torch scheduler, it sets weight decay
    # through a name that says LR) is followed, not guessed
    files = {
        "train.py": MODULE_ATTRIBUTE_POLY,
        "lib/__init__.py": "",
        "lib/schedules.py": """
        class PolyLR:
            def __init__(self, optimizer, max_iter, power):
                self.optimizer = optimizer
                self.max_iter = max_iter
                self.power = power
                self.t = 0

            def step(self):
                self.t += 1
                for group in self.optimizer.param_groups:
                    group["weight_decay"] = 1e-4 * (1 - self.t / self.max_iter) ** self.power
        """,
    }
    assert "LRD001" not in project_codes(check_project(tmp_path, monkeypatch, files))
