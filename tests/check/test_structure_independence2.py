"""The model of the program follows the objects across modules (issue 7, meta3's cross-module
metamorphic tests): a scheduler picked from a registry of another module, by a literal key or
by a setting that holds one, and steps taken by hook objects a trainer runs for each batch,
must give the findings the same program gives written in one place.

Each test writes a small project in the rewritten layout and the plain one (the control, which
must be reported), and a correct variant that must stay silent."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project


def found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]) -> set[str]:
    return {code for _, _, code in check_project(tmp_path, monkeypatch, files)}


# -- a registry of builders in another module ------------------------------------------------

# two schedules: one sized in epochs, one in batches (stepping it per batch is right)
BUILDERS = """
import torch

def make_sgd(net, lr):
    return torch.optim.SGD(net.parameters(), lr=lr, momentum=0.9)

def make_step(opt, steps_per_epoch):
    return torch.optim.lr_scheduler.StepLR(opt, step_size=30)

def make_onecycle(opt, steps_per_epoch):
    return torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, epochs=90,
                                               steps_per_epoch=steps_per_epoch)
"""

TABLE = BUILDERS + """
OPTIMIZERS = {"sgd": make_sgd}
SCHEDULERS = {"step": make_step, "onecycle": make_onecycle}
"""

# the same registry filled by a decorator that stores what it decorates under a name
DECORATED = """
import torch

OPTIMIZERS = {}
SCHEDULERS = {}

def register(table, name):
    def add(builder):
        table[name] = builder
        return builder
    return add

@register(OPTIMIZERS, "sgd")
def make_sgd(net, lr):
    return torch.optim.SGD(net.parameters(), lr=lr, momentum=0.9)

@register(SCHEDULERS, "step")
def make_step(opt, steps_per_epoch):
    return torch.optim.lr_scheduler.StepLR(opt, step_size=30)

@register(SCHEDULERS, "onecycle")
def make_onecycle(opt, steps_per_epoch):
    return torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, epochs=90,
                                               steps_per_epoch=steps_per_epoch)
"""

DRIVER = """
import torch
{imports}

def main(net, train_loader):
    opt = {make_opt}
    sched = {make_sched}
    for epoch in range(90):
        for x in train_loader:
            loss = net(x).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()

if __name__ == "__main__":
    main(torch.nn.Linear(4, 1), torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=8))
"""

PLAIN = {
    "step": "torch.optim.lr_scheduler.StepLR(opt, step_size=30)",
    "onecycle": "torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, epochs=90, "
                "steps_per_epoch=len(train_loader))",
}


def _driver(imports: str, make_opt: str, make_sched: str) -> str:
    return DRIVER.format(imports=imports, make_opt=make_opt, make_sched=make_sched)


def _layouts(kind: str) -> dict[str, dict[str, str]]:
    return {
        "plain": {"train.py": _driver(
            "", "torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)", PLAIN[kind])},
        "table, literal key": {
            "registry.py": TABLE,
            "train.py": _driver("from registry import OPTIMIZERS, SCHEDULERS",
                                'OPTIMIZERS["sgd"](net, 0.1)',
                                f'SCHEDULERS["{kind}"](opt, len(train_loader))')},
        "table through a package": {
            "lib/__init__.py": "from .registry import OPTIMIZERS, SCHEDULERS\n",
            "lib/registry.py": TABLE,
            "train.py": _driver("from lib import OPTIMIZERS, SCHEDULERS",
                                'OPTIMIZERS["sgd"](net, 0.1)',
                                f'SCHEDULERS["{kind}"](opt, len(train_loader))')},
        "setting of the builder's module": {
            "registry.py": DECORATED,
            "lib/__init__.py": "",
            "lib/build.py": "from registry import OPTIMIZERS, SCHEDULERS\n"
                            f'CFG = {{"optimizer": "sgd", "scheduler": "{kind}"}}\n\n'
                            "def build_optimizer(net):\n"
                            '    return OPTIMIZERS[CFG["optimizer"]](net, 0.1)\n\n'
                            "def build_scheduler(opt, n):\n"
                            '    return SCHEDULERS[CFG["scheduler"]](opt, n)\n',
            "train.py": _driver("from lib.build import build_optimizer, build_scheduler",
                                "build_optimizer(net)",
                                "build_scheduler(opt, len(train_loader))")},
        "decorator, setting": {
            "registry.py": DECORATED,
            "train.py": _driver("import registry\n"
                                f'CFG = {{"optimizer": "sgd", "scheduler": "{kind}"}}',
                                'registry.OPTIMIZERS[CFG["optimizer"]](net, 0.1)',
                                'registry.SCHEDULERS[CFG["scheduler"]](opt, len(train_loader))')},
    }


@pytest.mark.parametrize("layout", list(_layouts("step")))
def test_an_epoch_schedule_picked_from_a_registry_and_stepped_per_batch_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str) -> None:
    assert "LRD002" in found(tmp_path, monkeypatch, _layouts("step")[layout])


@pytest.mark.parametrize("layout", list(_layouts("onecycle")))
def test_the_batch_schedule_of_the_same_registry_stepped_per_batch_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str) -> None:
    # the key picks one builder: the StepLR beside it in the registry is never built
    assert found(tmp_path, monkeypatch, _layouts("onecycle")[layout]) & {
        "LRD002", "LRD003", "LRD012"} == set()


def test_a_registry_changed_elsewhere_is_not_read_as_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the table is handed to a function that may replace its entries: what "onecycle" names
    # at run time is not known, so the StepLR written under that key is not taken for it
    files = _layouts("onecycle")["table, literal key"]
    files["registry.py"] = "from plugins import extend\n" + BUILDERS + """
OPTIMIZERS = {"sgd": make_sgd}
SCHEDULERS = {"onecycle": make_step}
extend(SCHEDULERS)
"""
    assert "LRD002" not in found(tmp_path, monkeypatch, files)
    files["registry.py"] = files["registry.py"].replace("extend(SCHEDULERS)", "")
    assert "LRD002" in found(tmp_path / "again", monkeypatch, files)


def test_a_key_not_known_here_picks_no_entry_of_several(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the command line picks the schedule: the OneCycleLR may be the one stepped per batch,
    # so the StepLR beside it is not taken for it (the first entry is no guess to make)
    driver = _driver("import sys\nfrom registry import OPTIMIZERS, SCHEDULERS",
                     'OPTIMIZERS["sgd"](net, 0.1)',
                     "SCHEDULERS[sys.argv[1]](opt, len(train_loader))")
    assert "LRD002" not in found(tmp_path, monkeypatch, {"registry.py": TABLE,
                                                         "train.py": driver})
    # the control: with one entry, that entry is the one any key that works picks
    one = TABLE.replace('SCHEDULERS = {"step": make_step, "onecycle": make_onecycle}',
                        'SCHEDULERS = {"step": make_step}')
    assert "LRD002" in found(tmp_path / "one", monkeypatch, {"registry.py": one,
                                                             "train.py": driver})


def test_a_setting_changed_elsewhere_picks_no_entry(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the builder's module lets the command line replace the setting: "onecycle" may be the
    # schedule built, so the StepLR the literal names is not taken for it
    files = _layouts("step")["setting of the builder's module"]
    files["lib/build.py"] = files["lib/build.py"].replace(
        "\n\ndef build_optimizer", '\nCFG.update(scheduler=__import__("sys").argv[1])\n\n'
                                   "def build_optimizer")
    assert "CFG.update" in files["lib/build.py"]
    assert "LRD002" not in found(tmp_path, monkeypatch, files)


# -- hooks a trainer runs for each batch ---------------------------------------------------

HOOKS = """
class Hook:
    def after_iter(self, trainer):
        pass

class StepHook(Hook):
    def after_iter(self, trainer):
        trainer.optimizer.step()
        trainer.scheduler.step()
"""

TRAINER = """
import torch
{imports}

class Trainer:
    def __init__(self, model, optimizer, scheduler, train_loader):
        {hooks}
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.train_loader = train_loader

    def fit(self, epochs):
        for epoch in range(epochs):
            for x in self.train_loader:
                loss = self.model(x).mean()
                self.optimizer.zero_grad()
                loss.backward()
                {steps}
"""

MAIN = """
import torch
from trainer import Trainer

def main():
    model = torch.nn.Linear(4, 1)
    loader = torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=8)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = {sched}
    Trainer(model, opt, sched, loader).fit(90)

if __name__ == "__main__":
    main()
"""

SCHEDS = {
    "step": "torch.optim.lr_scheduler.StepLR(opt, step_size=30)",
    "onecycle": "torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, epochs=90, "
                "steps_per_epoch=len(loader))",
}


def _hook_layouts(kind: str) -> dict[str, dict[str, str]]:
    plain = TRAINER.format(imports="", hooks="pass",
                           steps="self.optimizer.step()\n                "
                                 "self.scheduler.step()")
    hooked = TRAINER.format(imports="from hooks import StepHook",
                            hooks="self.hooks = [StepHook()]",
                            steps="for hook in self.hooks:\n                    "
                                  "hook.after_iter(self)")
    return {
        "plain": {"trainer.py": plain, "main.py": MAIN.format(sched=SCHEDS[kind])},
        "hooks": {"trainer.py": hooked, "hooks.py": HOOKS,
                  "main.py": MAIN.format(sched=SCHEDS[kind])},
    }


@pytest.mark.parametrize("layout", ["plain", "hooks"])
def test_an_epoch_schedule_stepped_by_a_per_batch_hook_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str) -> None:
    assert "LRD002" in found(tmp_path, monkeypatch, _hook_layouts("step")[layout])


@pytest.mark.parametrize("layout", ["plain", "hooks"])
def test_a_batch_schedule_stepped_by_a_per_batch_hook_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str) -> None:
    assert found(tmp_path, monkeypatch, _hook_layouts("onecycle")[layout]) & {
        "LRD002", "LRD003", "LRD017", "LRD001"} == set()


def test_hooks_run_one_after_another_not_as_a_loop_over_batches(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # two hooks, the epoch schedule stepped by the one the trainer runs after each epoch:
    # right, and silent (the list of hooks is not a loop of its own)
    files = _hook_layouts("step")["hooks"]
    files["hooks.py"] = """
class OptimHook:
    def after_iter(self, trainer):
        trainer.optimizer.step()

class LogHook:
    def after_iter(self, trainer):
        print(trainer.optimizer.param_groups[0]["lr"])
"""
    files["trainer.py"] = files["trainer.py"].replace(
        "from hooks import StepHook", "from hooks import OptimHook, LogHook").replace(
        "[StepHook()]", "[OptimHook(), LogHook()]") + \
        "            self.scheduler.step()\n"
    assert "LRD002" not in found(tmp_path, monkeypatch, files)


# -- a GradScaler made by a builder of another module, picked by a flag -----------------------

SCALER_BUILD = """
import torch

def build_scaler():
    return torch.amp.GradScaler("cuda"{enabled})
"""

AMP_DRIVER = """
import argparse
import torch
{imports}

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--amp", action="store_true")
    args = parser.parse_args()
    net = torch.nn.Linear(4, 1)
    train_loader = torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=8)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, epochs=90,
                                                steps_per_epoch=len(train_loader))
    scaler = {make} if args.amp else None
    for epoch in range(90):
        for x in train_loader:
            with torch.autocast("cuda", enabled=args.amp):
                loss = net(x).mean()
            opt.zero_grad()
            if scaler is not None:
                scaler.scale(loss).backward()
                scaler.step(opt)
                scaler.update()
            else:
                loss.backward()
                opt.step()
            sched.step()

if __name__ == "__main__":
    main()
"""


@pytest.mark.parametrize("layout", ["plain", "builder"])
@pytest.mark.parametrize("enabled", [True, False])
def test_a_scaler_from_a_builder_picked_by_a_flag_skips_as_the_plain_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str, enabled: bool) -> None:
    flag = "" if enabled else ", enabled=False"
    if layout == "plain":
        files = {"train.py": AMP_DRIVER.format(
            imports="", make=f'torch.amp.GradScaler("cuda"{flag})')}
    else:
        files = {"build.py": SCALER_BUILD.format(enabled=flag),
                 "train.py": AMP_DRIVER.format(imports="from build import build_scaler",
                                               make="build_scaler()")}
    # reported when the scaler can skip steps (a disabled one never does)
    assert ("LRD005" in found(tmp_path, monkeypatch, files)) is enabled
