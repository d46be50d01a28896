"""Shapes seen in the fresh-2026-12zzy124 batch (rcnew124, bench/realcode/README.md): schedule
horizons and stepping rates set from configuration files and options (YAML, JSON, TOML,
argparse), stepped per batch, per epoch or per accumulated update.

Programs written for these tests; no third-party code.

The batch's dev cases were right at first sight. Probing the family found one gap, fixed: a
OneCycleLR sized ``total_steps=N`` (an option, a config entry, a local) stepped on every pass
of an iteration loop that makes more than N passes (``for it in range(N + 1)``, ``while step
<= N`` counted from 0) was not reported, although the step after the N-th raises ``Tried to
step N+1 times``; the epoch-loop spelling (``epochs=E`` with ``range(E + 1)``) already was.

The rest are probes of the theme kept as regression tests (right on both builds).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, project_codes

ONECYCLE_ITERS = '''
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--iters", type=int, default=100000)
parser.add_argument("--accum", type=int, default=2)
args = parser.parse_args()


def train(model, batches, ckpt=None):
    opt = torch.optim.AdamW(model.parameters(), lr=4e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 4e-4, total_steps=TOTAL)
LOOP
'''

ONE_UPDATE = '''\
        x, y = next(batches)
        opt.zero_grad()
        model(x, y).backward()
        opt.step()
        sched.step()
'''


def onecycle(total: str, loop: str) -> str:
    return ONECYCLE_ITERS.replace("TOTAL", total).replace("LOOP", loop)


@pytest.mark.parametrize("total, loop", [
    ("args.iters", "    for it in range(args.iters + 1):\n" + ONE_UPDATE),
    ("args.iters", "    for it in range(1, args.iters + 2):\n" + ONE_UPDATE),
    ("args.iters", "    step = 0\n    while step <= args.iters:\n" + ONE_UPDATE
     + "        step += 1\n"),
    ("5000", "    for it in range(5001):\n" + ONE_UPDATE),
    ("args.iters - 1", "    for it in range(args.iters):\n" + ONE_UPDATE),
])
def test_onecycle_total_steps_stepped_by_a_longer_iteration_loop_is_reported(total, loop):
    assert codes(onecycle(total, loop)) == ["LRD010"]


@pytest.mark.parametrize("total, loop", [
    ("args.iters", "    for it in range(args.iters):\n" + ONE_UPDATE),
    ("args.iters", "    for it in range(1, args.iters + 1):\n" + ONE_UPDATE),
    ("args.iters + 1", "    for it in range(args.iters + 1):\n" + ONE_UPDATE),
    ("args.iters", "    step = 0\n    while step < args.iters:\n" + ONE_UPDATE
     + "        step += 1\n"),
    ("6000", "    for it in range(5001):\n" + ONE_UPDATE),
    # the step is guarded, skipped on a pass, or the loop may stop first
    ("args.iters", "    for it in range(args.iters + 1):\n"
     + ONE_UPDATE.replace("        sched.step()\n",
                          "        if it < args.iters:\n            sched.step()\n")),
    ("args.iters", "    for it in range(args.iters + 1):\n        if it == 0:\n"
     "            continue\n" + ONE_UPDATE),
    ("args.iters", "    for it in range(args.iters + 1):\n" + ONE_UPDATE
     + "        if it + 1 >= args.iters:\n            break\n"),
    # one update every `accum` passes
    ("args.iters", "    for it in range(args.iters + 1):\n        x, y = next(batches)\n"
     "        model(x, y).backward()\n        if (it + 1) % args.accum == 0:\n"
     "            opt.step()\n            opt.zero_grad()\n            sched.step()\n"),
    # resumed: the loop starts where the checkpoint left off, the counter is restored
    ("args.iters", "    start = 0\n    if ckpt is not None:\n        start = ckpt['step']\n"
     "        sched.load_state_dict(ckpt['sched'])\n"
     "    for it in range(start, args.iters + 1):\n" + ONE_UPDATE),
    ("args.iters", "    step = 0\n    if ckpt is not None:\n        step = ckpt['step']\n"
     "    while step <= args.iters:\n" + ONE_UPDATE + "        step += 1\n"),
    # rebuilt inside the loop
    ("args.iters", "    for it in range(args.iters + 1):\n        if it % 1000 == 0:\n"
     "            sched = torch.optim.lr_scheduler.OneCycleLR(opt, 4e-4, "
     "total_steps=args.iters)\n" + ONE_UPDATE),
])
def test_onecycle_total_steps_within_the_loop_is_not_reported(total, loop):
    assert codes(onecycle(total, loop)) == []


def test_onecycle_total_steps_from_a_nested_yaml_entry(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch):
    source = '''
    import yaml
    import torch


    def forever(loader):
        while True:
            for batch in loader:
                yield batch


    def main(model, loader):
        cfg = yaml.safe_load(open("train.yaml"))
        opt = torch.optim.AdamW(model.parameters(), lr=cfg["solver"]["lr"])
        sched = torch.optim.lr_scheduler.OneCycleLR(
            opt, cfg["solver"]["lr"], total_steps=cfg["solver"]["iters"])
        data = forever(loader)
        for it in range(cfg["solver"]["iters"]LOOP_EXTRA):
            x, y = next(data)
            opt.zero_grad()
            model(x, y).backward()
            opt.step()
            sched.step()
    '''
    config = "solver:\n  iters: 100000\n  lr: 0.0004\n"
    found = check_project(tmp_path / "over", monkeypatch,
                          {"train.py": source.replace("LOOP_EXTRA", " + 1"),
                           "train.yaml": config}, ["train.py"])
    assert project_codes(found) == ["LRD010"]
    found = check_project(tmp_path / "exact", monkeypatch,
                          {"train.py": source.replace("LOOP_EXTRA", ""),
                           "train.yaml": config}, ["train.py"])
    assert project_codes(found) == []


# --- probes of the theme kept as regression tests ---------------------------------------

STEPLR_FROM_YAML = '''
import yaml
import torch


def main(model, loader):
    with open("cfg.yaml") as f:
        cfg = yaml.safe_load(f)
    opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"])
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=cfg["step_size"], gamma=0.1)
    for epoch in range(cfg["epochs"]):
        for x, y in loader:
            opt.zero_grad()
            model(x, y).backward()
            opt.step()
PER_BATCH            sched.step()
PER_EPOCH        sched.step()
'''


@pytest.mark.parametrize("where, expected", [("PER_BATCH", ["LRD002"]), ("PER_EPOCH", [])])
def test_steplr_sized_in_a_yaml_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     where: str, expected: list[str]):
    other = "PER_EPOCH" if where == "PER_BATCH" else "PER_BATCH"
    lines = [line for line in STEPLR_FROM_YAML.splitlines(True) if not line.startswith(other)]
    source = "".join(line.replace(where, "") for line in lines)
    found = check_project(tmp_path, monkeypatch, {
        "train.py": source, "cfg.yaml": "epochs: 90\nstep_size: 30\nlr: 0.1\n"}, ["train.py"])
    assert project_codes(found) == expected


CYCLIC_FROM_OPTIONS = '''
import argparse
import torch

p = argparse.ArgumentParser()
p.add_argument("--epochs", type=int, default=50)
p.add_argument("--step-size-up", type=int, default=2000)
args = p.parse_args()


def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=1e-4, momentum=0.9)
    sched = torch.optim.lr_scheduler.CyclicLR(opt, 1e-4, 1e-2, step_size_up=args.step_size_up)
    for epoch in range(args.epochs):
        for x, y in loader:
            opt.zero_grad()
            model(x, y).backward()
            opt.step()
PER_BATCH            sched.step()
PER_EPOCH        sched.step()
'''


@pytest.mark.parametrize("where, expected", [("PER_BATCH", []), ("PER_EPOCH", ["LRD003"])])
def test_cyclic_lr_sized_in_iterations_by_an_option(where: str, expected: list[str]):
    other = "PER_EPOCH" if where == "PER_BATCH" else "PER_BATCH"
    lines = [line for line in CYCLIC_FROM_OPTIONS.splitlines(True) if not line.startswith(other)]
    assert codes("".join(line.replace(where, "") for line in lines)) == expected


def test_steplr_from_a_json_config_stepped_before_the_epochs_updates():
    source = '''
    import argparse
    import json
    import torch

    ap = argparse.ArgumentParser()
    ap.add_argument("--config")
    settings = json.load(open(ap.parse_args().config))
    model = torch.nn.Linear(3, 1)
    batches = []
    opt = torch.optim.SGD(model.parameters(), lr=settings["lr"])
    sched = torch.optim.lr_scheduler.StepLR(opt, settings["step_size"], gamma=settings["decay"])
    for epoch in range(settings["epochs"]):
        sched.step()
        for x, y in batches:
            loss = (model(x) - y).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    '''
    assert codes(source) == ["LRD001"]


PLATEAU = '''
import yaml
import torch


def evaluate(model, loader):
    total = 0.0
    with torch.no_grad():
        for x, y in loader:
            total += torch.nn.functional.mse_loss(model(x), y).item()
    return total / len(loader)


def main(model, train_loader, val_loader):
    cfg = yaml.safe_load(open("cfg.yaml"))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", patience=cfg["patience"])
    for epoch in range(cfg["epochs"]):
        running = 0.0
        for x, y in train_loader:
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            running += loss.item()
        train_loss = running / len(train_loader)
        val_loss = evaluate(model, val_loader)
        sched.step(METRIC)
'''


@pytest.mark.parametrize("metric, expected", [("train_loss", ["LRD004"]), ("val_loss", [])])
def test_plateau_patience_from_yaml_fed_which_loss(metric: str, expected: list[str]):
    assert codes(PLATEAU.replace("METRIC", metric)) == expected


def test_plateau_on_validation_accuracy_every_few_epochs_from_toml_settings():
    source = '''
    import tomllib
    import torch

    S = tomllib.load(open("settings.toml", "rb"))


    class Agent:
        def __init__(self, model, train_loader, val_loader):
            self.model, self.train_loader, self.val_loader = model, train_loader, val_loader
            self.opt = torch.optim.Adam(model.parameters(), lr=1e-3)
            self.sched = torch.optim.lr_scheduler.ReduceLROnPlateau(
                self.opt, mode="max", factor=S["optim"]["factor"], patience=S["optim"]["patience"])

        def train_epoch(self):
            for x, y in self.train_loader:
                self.opt.zero_grad()
                torch.nn.functional.cross_entropy(self.model(x), y).backward()
                self.opt.step()

        @torch.no_grad()
        def validate(self):
            correct = total = 0
            for x, y in self.val_loader:
                correct += (self.model(x).argmax(1) == y).sum().item()
                total += y.numel()
            return correct / total

        def train(self):
            for epoch in range(1, S["agent"]["num_epochs"] + 1):
                self.train_epoch()
                if epoch % S["agent"]["val_every"] == 0:
                    self.sched.step(self.validate())
    '''
    assert codes(source) == []


WARMUP_ACCUM = '''
import argparse
import math
import torch

ap = argparse.ArgumentParser()
ap.add_argument("--epochs", type=int, default=3)
ap.add_argument("--accum", type=int, default=8)
args = ap.parse_args()


def warmup_cosine(warmup, total):
    def factor(step):
        if step < warmup:
            return step / max(1, warmup)
        return 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, total - warmup)))
    return factor


def main(model, loader):
    opt = torch.optim.AdamW(model.parameters(), lr=2e-5)
    total = args.epochs * (len(loader) // args.accum)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, warmup_cosine(total // 10, total))
    for epoch in range(args.epochs):
        for i, batch in enumerate(loader):
            (model(**batch).loss / args.accum).backward()
            if (i + 1) % args.accum == 0:
                opt.step()
                opt.zero_grad()
IN_UPDATE                sched.step()
PER_MICRO            sched.step()
'''


@pytest.mark.parametrize("where, expected", [("IN_UPDATE", []), ("PER_MICRO", ["LRD017"])])
def test_warmup_sized_in_updates_stepped_per_update_or_per_micro_batch(where, expected):
    other = "PER_MICRO" if where == "IN_UPDATE" else "IN_UPDATE"
    lines = [line for line in WARMUP_ACCUM.splitlines(True) if not line.startswith(other)]
    assert codes("".join(line.replace(where, "") for line in lines)) == expected


def test_cosine_lambda_stepped_every_other_epoch_is_not_reported():
    source = '''
    import math
    import torch

    EPOCHS = 58
    EVERY = 2


    def main(model, loader):
        opt = torch.optim.SGD(model.parameters(), lr=5e-4, momentum=0.9)
        sched = torch.optim.lr_scheduler.LambdaLR(
            opt, lambda e: ((1 + math.cos(e * math.pi / EPOCHS)) / 2) * 0.95 + 0.05)
        for epoch in range(EPOCHS + 1):
            for x, y in loader:
                opt.zero_grad()
                model(x, y).backward()
                opt.step()
            if epoch % EVERY == 0:
                sched.step()
    '''
    assert codes(source) == []


def test_scheduler_stepped_per_iteration_or_per_epoch_by_a_config_flag():
    source = '''
    import json
    import torch


    class Trainer:
        def __init__(self, cfg, model, loader):
            self.cfg, self.model, self.loader = cfg, model, loader
            self.opt = torch.optim.Adam(model.parameters(), lr=1e-3)
            self.sched = torch.optim.lr_scheduler.ExponentialLR(self.opt, gamma=cfg["gamma"])
            self.per_iter = cfg["per_iter"]

        def iteration(self, x, y):
            self.opt.zero_grad()
            self.model(x, y).backward()
            self.opt.step()
            if self.per_iter:
                self.sched.step()

        def run(self):
            for epoch in range(self.cfg["epochs"]):
                for x, y in self.loader:
                    self.iteration(x, y)
                if not self.per_iter:
                    self.sched.step()
    '''
    assert codes(source) == []


def test_onecycle_in_a_lightning_module_is_read_without_error():
    # Lightning's loops are modelled on the hook methods, not on `for`/`while` statements
    source = '''
    import lightning as L
    import torch


    class Model(L.LightningModule):
        def __init__(self, total_steps):
            super().__init__()
            self.net = torch.nn.Linear(4, 1)
            self.total_steps = total_steps

        def training_step(self, batch, batch_idx):
            x, y = batch
            return torch.nn.functional.mse_loss(self.net(x), y)

        def configure_optimizers(self):
            opt = torch.optim.AdamW(self.parameters(), lr=1e-3)
            sched = torch.optim.lr_scheduler.OneCycleLR(opt, 1e-3, total_steps=self.total_steps)
            return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}

        def lr_scheduler_step(self, scheduler, metric):
            scheduler.step()
    '''
    assert codes(source) == []


BUILDER = '''
import torch


def build(opt, cfg):
    return torch.optim.lr_scheduler.OneCycleLR(opt, cfg.lr, total_steps=cfg.TOTAL)
'''

DRIVER = '''
import argparse
import torch
from schedules import build

parser = argparse.ArgumentParser()
parser.add_argument("--iters", type=int, default=50000)
parser.add_argument("--total", type=int, default=60000)
parser.add_argument("--lr", type=float, default=4e-4)


def main(model, batches):
    cfg = parser.parse_args()
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
    sched = build(opt, cfg)
    for it in range(LOOP):
        x, y = next(batches)
        opt.zero_grad()
        model(x, y).backward()
        opt.step()
        sched.step()
'''


@pytest.mark.parametrize("total, loop, expected", [
    ("iters", "cfg.iters + 1", ["LRD010"]),
    ("iters", "cfg.iters", []),
    ("total", "cfg.iters + 1", []),
])
def test_onecycle_built_by_a_helper_module_from_the_callers_options(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, total: str, loop: str,
        expected: list[str]):
    found = check_project(tmp_path, monkeypatch, {
        "schedules.py": BUILDER.replace("TOTAL", total),
        "train.py": DRIVER.replace("LOOP", loop)}, ["train.py"])
    assert project_codes(found) == expected
