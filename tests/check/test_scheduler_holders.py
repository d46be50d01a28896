"""Where real code keeps its scheduler and how it builds it: a local, `self.sched`,
`self.lr_scheduler`, a dict entry, a tuple returned by a build helper, a helper in another
module, a keyword argument of the per-epoch function. However it is held, a OneCycleLR stepped
once per epoch is LRD003, a cosine over epochs stepped every batch is LRD002, and each
stepped where it belongs is correct."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from lrdoctor.check.engine import check_file
from tests.check.helpers import codes

# Each holder: the script, with {batch} where a per-batch step goes and {epoch} where a
# per-epoch step goes, {build} for the scheduler's constructor call, and the step call.
_HOLDERS: dict[str, tuple[str, str]] = {
    "self_sched_built_in_init": ("""
import torch
from torch.optim.lr_scheduler import OneCycleLR, CosineAnnealingLR

class Trainer:
    def __init__(self, model, loader, epochs):
        self.model, self.loader, self.epochs = model, loader, epochs
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        optimizer = self.optimizer
        self.sched = {build}

    def fit(self):
        for epoch in range(self.epochs):
            for x in self.loader:
                self.model(x).sum().backward()
                self.optimizer.step()
                self.optimizer.zero_grad()
{batch}
{epoch}
""", "self.sched.step()"),
    "self_lr_scheduler_built_in_a_setup_method": ("""
import torch
from torch.optim.lr_scheduler import OneCycleLR, CosineAnnealingLR

class Trainer:
    def __init__(self, model, loader, epochs):
        self.model, self.loader, self.epochs = model, loader, epochs
        self.create_optimizer_and_scheduler()

    def create_optimizer_and_scheduler(self):
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        optimizer, loader, epochs = self.optimizer, self.loader, self.epochs
        self.lr_scheduler = {build}

    def train(self):
        for epoch in range(self.epochs):
            self.train_epoch()
{epoch}

    def train_epoch(self):
        for x in self.loader:
            self.model(x).sum().backward()
            self.optimizer.step()
            self.optimizer.zero_grad()
{batch}
""", "self.lr_scheduler.step()"),
    "dict_entry_of_self": ("""
import torch
from torch.optim.lr_scheduler import OneCycleLR, CosineAnnealingLR

class GANTrainer:
    def __init__(self, gen, loader, epochs):
        self.gen, self.loader, self.epochs = gen, loader, epochs
        optimizer = torch.optim.Adam(gen.parameters(), lr=2e-4)
        self.optimizers = {{"g": optimizer}}
        self.schedulers = {{"g": {build}}}

    def fit(self):
        for epoch in range(self.epochs):
            for x in self.loader:
                self.gen(x).sum().backward()
                self.optimizers["g"].step()
                self.optimizers["g"].zero_grad()
{batch}
{epoch}
""", 'self.schedulers["g"].step()'),
    "tuple_returned_by_a_build_function": ("""
import torch
from torch.optim.lr_scheduler import OneCycleLR, CosineAnnealingLR

def build_optimizer(model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = {build}
    return optimizer, scheduler

def main(model, loader, epochs):
    optimizer, lr_scheduler = build_optimizer(model, loader, epochs)
    for epoch in range(epochs):
        for x in loader:
            model(x).sum().backward()
            optimizer.step()
            optimizer.zero_grad()
{batch}
{epoch}
""", "lr_scheduler.step()"),
    "returned_directly_by_a_helper_given_the_optimizer": ("""
import torch
from torch.optim.lr_scheduler import OneCycleLR, CosineAnnealingLR

def get_scheduler(optimizer, loader, epochs):
    return {build}

def main(model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = get_scheduler(optimizer, loader, epochs)
    for epoch in range(epochs):
        for x in loader:
            model(x).sum().backward()
            optimizer.step()
            optimizer.zero_grad()
{batch}
{epoch}
""", "scheduler.step()"),
    "dict_returned_by_a_setup_function": ("""
import torch
from torch.optim.lr_scheduler import OneCycleLR, CosineAnnealingLR

def setup(model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    return {{"optimizer": optimizer, "scheduler": {build}}}

def main(model, loader, epochs):
    objs = setup(model, loader, epochs)
    optimizer = objs["optimizer"]
    for epoch in range(epochs):
        for x in loader:
            model(x).sum().backward()
            optimizer.step()
            optimizer.zero_grad()
{batch}
{epoch}
""", 'objs["scheduler"].step()'),
    "keyword_argument_of_the_epoch_function": ("""
import torch
from torch.optim.lr_scheduler import OneCycleLR, CosineAnnealingLR

def train_one_epoch(model, loader, optimizer, epoch, lr_scheduler=None):
    for x in loader:
        model(x).sum().backward()
        optimizer.step()
        optimizer.zero_grad()
{batch}

def main(model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    lr_scheduler = {build}
    for epoch in range(epochs):
        train_one_epoch(model, loader, optimizer, epoch, lr_scheduler=lr_scheduler)
{epoch}
""", "lr_scheduler.step()"),
    "lr_scheduler_module_alias": ("""
import torch
from torch.optim import lr_scheduler as sched_mod

def main(model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    OneCycleLR, CosineAnnealingLR = sched_mod.OneCycleLR, sched_mod.CosineAnnealingLR
    exp_lr_scheduler = {build}
    for epoch in range(epochs):
        for x in loader:
            model(x).sum().backward()
            optimizer.step()
            optimizer.zero_grad()
{batch}
{epoch}
""", "exp_lr_scheduler.step()"),
}

_BUILDS = {
    "batch": "OneCycleLR(optimizer, max_lr=0.1, total_steps=epochs * len(loader))",
    "epoch": "CosineAnnealingLR(optimizer, T_max=epochs)",
}


def _script(holder: str, horizon: str, per_batch: bool) -> str:
    text, call = _HOLDERS[holder]
    build = _BUILDS[horizon]
    lines = text.splitlines()
    out = []
    for line in lines:
        if line in ("{batch}", "{epoch}"):
            if (line == "{batch}") == per_batch:
                out.append(" " * _indent(lines, line) + call)
            continue
        out.append(line)
    return "\n".join(out).format(build=build) + "\n"


def _indent(lines: list[str], marker: str) -> int:
    """The indentation of the statement just above ``marker`` (the optimizer update for
    {batch}; the batch loop, or the call of the epoch function, for {epoch})."""
    i = lines.index(marker)
    if marker == "{batch}":
        above = lines[i - 1]
        return len(above) - len(above.lstrip())
    for line in reversed(lines[:i]):
        stripped = line.lstrip()
        if stripped.startswith(("for x in", "self.train_epoch()", "train_one_epoch(")):
            return len(line) - len(stripped)
    raise AssertionError(marker)


@pytest.mark.parametrize("holder", sorted(_HOLDERS))
def test_onecycle_stepped_once_per_epoch_is_lrd003(holder: str) -> None:
    assert codes(_script(holder, "batch", per_batch=False)) == ["LRD003"]


@pytest.mark.parametrize("holder", sorted(_HOLDERS))
def test_onecycle_stepped_every_batch_is_correct(holder: str) -> None:
    assert codes(_script(holder, "batch", per_batch=True)) == []


@pytest.mark.parametrize("holder", sorted(_HOLDERS))
def test_epoch_cosine_stepped_every_batch_is_lrd002(holder: str) -> None:
    assert codes(_script(holder, "epoch", per_batch=True)) == ["LRD002"]


@pytest.mark.parametrize("holder", sorted(_HOLDERS))
def test_epoch_cosine_stepped_once_per_epoch_is_correct(holder: str) -> None:
    assert codes(_script(holder, "epoch", per_batch=False)) == []


# -- a build helper in another module of the project -----------------------------------------


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


_BUILDERS = {
    "returns_the_scheduler": ("""
        from torch.optim.lr_scheduler import OneCycleLR

        def build_scheduler(cfg, optimizer, steps_per_epoch):
            return OneCycleLR(optimizer, max_lr=cfg.lr,
                              total_steps=cfg.epochs * steps_per_epoch)
    """, "scheduler = build_scheduler(cfg, optimizer, len(loader))"),
    "returns_optimizer_and_scheduler": ("""
        import torch
        from torch.optim.lr_scheduler import OneCycleLR

        def build_optimizer(cfg, model, steps_per_epoch):
            optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
            scheduler = OneCycleLR(optimizer, max_lr=cfg.lr,
                                   total_steps=cfg.epochs * steps_per_epoch)
            return optimizer, scheduler
    """, "optimizer, scheduler = build_optimizer(cfg, model, len(loader))"),
    "re_exported_by_the_package": ("""
        from torch.optim.lr_scheduler import OneCycleLR

        def make_scheduler(optimizer, cfg, steps_per_epoch):
            return OneCycleLR(optimizer, max_lr=cfg.lr,
                              total_steps=cfg.epochs * steps_per_epoch)
    """, "scheduler = solver.make_scheduler(optimizer, cfg, len(loader))"),
}


def _project(tmp_path: Path, builder: str, per_batch: bool) -> Path:
    helper, call = _BUILDERS[builder]
    _write(tmp_path / "solver/__init__.py",
           "from .lr import *  # noqa\n" if builder == "re_exported_by_the_package" else "")
    _write(tmp_path / "solver/lr.py", helper)
    step = "            scheduler.step()\n" if per_batch else "        scheduler.step()\n"
    make_opt = "" if "optimizer, scheduler" in call else \
        "    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)\n"
    imports = {"re_exported_by_the_package": "import solver\n",
               "returns_the_scheduler": "from solver.lr import build_scheduler\n",
               "returns_optimizer_and_scheduler": "from solver.lr import *\n"}[builder]
    driver = (
        "import torch\n" + imports + "\n"
        "def main(cfg, model, loader):\n" + make_opt + "    " + call + "\n"
        "    for epoch in range(cfg.epochs):\n"
        "        for batch in loader:\n"
        "            model(batch).sum().backward()\n"
        "            optimizer.step()\n"
        "            optimizer.zero_grad()\n" + step
    )
    _write(tmp_path / "train.py", driver)
    return tmp_path / "train.py"


@pytest.mark.parametrize("builder", sorted(_BUILDERS))
def test_onecycle_from_a_project_builder_stepped_per_epoch_is_lrd003(
        tmp_path: Path, builder: str) -> None:
    result = check_file(str(_project(tmp_path, builder, per_batch=False)))
    assert result.errors == []
    assert [d.code for d in result.diagnostics] == ["LRD003"]


@pytest.mark.parametrize("builder", sorted(_BUILDERS))
def test_onecycle_from_a_project_builder_stepped_per_batch_is_correct(
        tmp_path: Path, builder: str) -> None:
    result = check_file(str(_project(tmp_path, builder, per_batch=True)))
    assert result.errors == []
    assert [d.code for d in result.diagnostics] == []


def test_driver_without_trigger_words_follows_a_star_imported_train_step(tmp_path: Path) -> None:
    # the driver only builds and hands over; the per-batch step lives in the star-imported
    # engine, and the scheduler is built from a builder module the driver names
    _write(tmp_path / "engine.py", """
        def train_one_epoch(model, loader, optimizer, sched):
            for batch in loader:
                model(batch).sum().backward()
                optimizer.step()
                optimizer.zero_grad()
                sched.step()
    """)
    _write(tmp_path / "schedules.py", """
        import torch

        def cosine(optimizer, epochs):
            return torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    """)
    _write(tmp_path / "train.py", """
        import torch
        from engine import *
        from schedules import cosine

        def main(model, loader, epochs):
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            sched = cosine(optimizer, epochs)
            for epoch in range(epochs):
                train_one_epoch(model, loader, optimizer, sched)
    """)
    result = check_file(str(tmp_path / "train.py"))
    assert result.errors == []
    assert [(d.code, Path(d.path).name) for d in result.diagnostics] == [("LRD002", "engine.py")]


_OPTIONAL = """
import torch

def train(model, loader, epochs, scheduler=None):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    for epoch in range(epochs):
        for i, x in enumerate(loader):
            model(x).sum().backward()
            optimizer.step()
            optimizer.zero_grad()
            if {test}:
                scheduler.step()
"""


@pytest.mark.parametrize("test", ["scheduler is not None", "scheduler", "scheduler != None",
                                  "not scheduler is None"])
def test_optional_scheduler_stepped_every_batch_is_still_per_batch(test: str) -> None:
    assert codes(_OPTIONAL.format(test=test)) == ["LRD002"]


@pytest.mark.parametrize("test", ["i == len(loader) - 1", "args.per_batch"])
def test_step_under_a_test_that_varies_with_the_batch_is_left_alone(test: str) -> None:
    assert codes(_OPTIONAL.format(test=test)) == []
