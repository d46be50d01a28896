"""Shapes met in the fresh real-code cases of issue 7 drawn from research training scripts
and Kaggle code (bench/realcode, batch "fresh-2026-12e", dev half): each test is the general
shape in our own words, next to the control that must stay as it is."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

# -- loaders unpacked from a builder lrdoctor cannot see ------------------------------------
# `train_dl, valid_dl = make_loaders(cfg)`: a call whose name says it builds loaders, unpacked
# into names that say they are loaders. Those names are loaders, so a progress bar or an
# `enumerate` over one is still a loop over batches, as it is when the builder's result is
# bound to a single name.

_UNPACKED_LOADERS = """
import torch
from tqdm import tqdm


class Runner:
    def __init__(self, cfg, net):
        self.net = net
        {unpack}
        self.opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr)
        self.sched = torch.optim.lr_scheduler.StepLR(self.opt, step_size=30, gamma=0.5)

    def fit(self, cfg):
        for ep in range(cfg.max_epochs):
            self.one_epoch()

    def one_epoch(self):
        bar = {bar}
        for k, (inputs, labels) in enumerate(bar):
            self.opt.zero_grad()
            self.net(inputs, labels).backward()
            self.opt.step()
            {step}
"""


def _unpacked(unpack: str, bar: str, step: str) -> str:
    return (_UNPACKED_LOADERS.replace("{unpack}", unpack).replace("{bar}", bar)
            .replace("{step}", step))


@pytest.mark.parametrize("unpack", [
    "self.train_dl, self.valid_dl = make_loaders(cfg)",
    "self.train_loader, self.val_loader = get_loader(cfg, rank=0)",
    "self.train_loader, self.val_loader, n_classes = build_dataloaders(cfg)",
])
@pytest.mark.parametrize("bar", [
    "tqdm(self.{loader})",
    "tqdm(self.{loader}) if self.net.training else self.{loader}",
])
def test_epoch_scheduler_stepped_over_a_bar_of_an_unpacked_loader(unpack: str, bar: str) -> None:
    loader = unpack.split(",")[0].split(".")[1]
    src = _unpacked(unpack, bar.replace("{loader}", loader), "self.sched.step()")
    assert "LRD002" in codes(src)


def test_unpacked_loader_stepped_after_the_batch_loop_is_fine() -> None:
    src = _unpacked("self.train_dl, self.valid_dl = make_loaders(cfg)", "tqdm(self.train_dl)",
                    "pass")
    src = src.replace("            pass\n", "        self.sched.step()\n")
    assert codes(src) == []


def test_unpacked_names_that_are_not_loaders_stay_unknown() -> None:
    # the builder's other results (a class count, a sampler) are not loaders: a loop over one
    # is not a batch loop
    src = _unpacked("self.classes, self.valid_dl = make_loaders(cfg)", "tqdm(self.classes)",
                    "self.sched.step()")
    assert "LRD002" not in codes(src)


def test_unpacked_from_a_builder_not_named_for_loaders_stays_unknown() -> None:
    # `split_data(cfg)` might return anything: only a builder named for loaders makes loaders
    src = _unpacked("self.train_dl, self.valid_dl = split_data(cfg)", "tqdm(self.train_dl)",
                    "self.sched.step()")
    assert "LRD002" not in codes(src)


_AMP_UNPACKED = """
import torch
from torch.cuda import amp
from tqdm import tqdm


class Trainer:
    def __init__(self, config, model):
        self.model = model
        self.scaler = amp.GradScaler(enabled=config.use_amp)
        self.train_loader, self.val_loader = get_loader(config)
        self.optimizer = torch.optim.SGD(model.parameters(), lr=config.lr, momentum=0.9)
        self.scheduler = torch.optim.lr_scheduler.OneCycleLR(
            self.optimizer, max_lr=config.lr, total_steps=config.epochs * len(self.train_loader))

    def run(self, config):
        for epoch in range(config.epochs):
            self.train_one_epoch(config)

    def train_one_epoch(self, config):
        pbar = tqdm(self.train_loader) if config.verbose else self.train_loader
        for it, (images, masks) in enumerate(pbar):
            self.optimizer.zero_grad()
            with amp.autocast(enabled=config.use_amp):
                loss = self.model(images, masks)
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)
            self.scaler.update()
            {tail}
"""


def test_amp_scheduler_per_batch_over_an_unpacked_loader() -> None:
    found = codes(_AMP_UNPACKED.replace("{tail}", "self.scheduler.step()"))
    assert "LRD005" in found
    assert "LRD003" not in found


def test_amp_scheduler_per_batch_over_an_unpacked_loader_control() -> None:
    # the skip-aware spelling: step the schedule only when the scale did not drop
    tail = ("scale = self.scaler.get_scale()\n"
            "            if scale >= self._last_scale:\n"
            "                self.scheduler.step()\n"
            "            self._last_scale = scale")
    found = codes(_AMP_UNPACKED.replace("{tail}", tail))
    assert "LRD005" not in found
    assert "LRD003" not in found
