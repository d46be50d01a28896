"""Known misses of `lrdoctor check` on real code (issue 7, fixes6), each fixed by what the
code means, with a control that must still be reported (or stay silent).

Programs written for these tests; no third-party code."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, findings


def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str],
            main: str = "train.py") -> list[str]:
    """Lays the files out as a project (a `.git` marks its root) and checks ``main``."""
    return [code for _, _, code in check_project(tmp_path, monkeypatch, files, [main])]


# 1. PyTorch-Ignite through a project subclass of `Engine`: `super().__init__(update)` names
# the process function Ignite calls once per batch with the engine (the subclass's instance,
# whose attributes it reads); `add_event_handler(event, fn, *args)` calls `fn(engine, *args)`
# at that event (or `fn(*args)` when fn takes no engine).

SUBCLASSED_ENGINE = """
    import torch
    from torch.amp import GradScaler, autocast
    from ignite.engine import Engine, Events


    class LossEngine(Engine):
        def __init__(self, func, model, optimizer, scheduler):
            self.model = model
            self.optimizer = optimizer
            self.scheduler = scheduler
            super().__init__(func)
            self.scaler = GradScaler("cuda")

        @staticmethod
        def update(engine, batch):
            engine.optimizer.zero_grad()
            with autocast("cuda"):
                loss = engine.model(batch).sum()
            engine.scaler.scale(loss).backward()
            engine.scaler.step(engine.optimizer)
            engine.scaler.update()
            return loss.item()

        @staticmethod
        def evaluate(engine, batch):
            with torch.no_grad():
                return engine.model(batch).sum().item()

        @staticmethod
        def save(engine, trainer, path):
            torch.save({{"model": engine.model.state_dict(),
                        "optimizer": trainer.optimizer.state_dict(){extra}}}, path)


    def end_of_epoch(engine, evaluator, loader):
        evaluator.run(loader, max_epochs=1)
        engine.scheduler.step()


    def fit(model, optimizer, scheduler, loader, epochs, path):
        trainer = LossEngine(LossEngine.update, model, optimizer, scheduler)
        evaluator = LossEngine(LossEngine.evaluate, model, None, None)
        trainer.add_event_handler(Events.{event}, end_of_epoch, evaluator, loader)
        evaluator.add_event_handler(Events.EPOCH_COMPLETED, LossEngine.save, trainer, path)
        trainer.run(loader, max_epochs=epochs)


    def main():
        model = torch.nn.Linear(4, 2).cuda()
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        loader = torch.utils.data.DataLoader(torch.randn(80, 4), batch_size=8)
        scheduler = {built}
        fit(model, optimizer, scheduler, loader, 30, "ckpt.pt")


    main()
"""

_STEPS = "torch.optim.lr_scheduler.MultiStepLR(optimizer, [10, 20])"
_CYCLE = "torch.optim.lr_scheduler.OneCycleLR(optimizer, 0.1, total_steps=30 * len(loader))"
_ALL_STATE = (', "scheduler": trainer.scheduler.state_dict(),'
              ' "scaler": trainer.scaler.state_dict()')


def test_engine_subclass_checkpoint_without_scaler_or_scheduler_is_lrd007() -> None:
    source = SUBCLASSED_ENGINE.format(event="EPOCH_COMPLETED", built=_STEPS, extra="")
    assert codes(source) == ["LRD007"]


def test_engine_subclass_checkpoint_with_all_state_is_fine() -> None:
    source = SUBCLASSED_ENGINE.format(event="EPOCH_COMPLETED", built=_STEPS, extra=_ALL_STATE)
    assert codes(source) == []


def test_engine_subclass_batch_schedule_stepped_per_epoch_is_lrd003() -> None:
    source = SUBCLASSED_ENGINE.format(event="EPOCH_COMPLETED", built=_CYCLE, extra=_ALL_STATE)
    assert codes(source) == ["LRD003"]


def test_engine_subclass_batch_schedule_stepped_per_iteration_is_in_step() -> None:
    source = SUBCLASSED_ENGINE.format(event="ITERATION_COMPLETED", built=_CYCLE,
                                      extra=_ALL_STATE)
    # per batch, as sized; only the GradScaler's skipped steps remain (the scheduler steps
    # on them too)
    assert codes(source) == ["LRD005"]


def test_engine_subclass_epoch_schedule_stepped_when_epoch_starts_is_lrd001() -> None:
    source = SUBCLASSED_ENGINE.format(event="EPOCH_STARTED", built=_STEPS, extra=_ALL_STATE)
    assert codes(source) == ["LRD001"]


OWN_UPDATE_METHOD = """
    import torch
    from ignite.engine import Engine, Events


    class Trainer(Engine):
        def __init__(self, model, optimizer, scheduler):
            super().__init__(self._update)
            self.model = model
            self.optimizer = optimizer
            self.scheduler = scheduler

        def _update(self, engine, batch):
            self.optimizer.zero_grad()
            self.model(batch).sum().backward()
            self.optimizer.step()
            {stepped}


    def step_schedule(scheduler):
        scheduler.step()


    model = torch.nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=40)
    loader = torch.utils.data.DataLoader(torch.randn(80, 4), batch_size=8)
    trainer = Trainer(model, optimizer, scheduler)
    {attached}
    trainer.run(loader, max_epochs=40)
"""


def test_bound_update_method_stepping_an_epoch_schedule_is_lrd002() -> None:
    source = OWN_UPDATE_METHOD.format(stepped="self.scheduler.step()", attached="")
    assert codes(source) == ["LRD002"]


def test_handler_taking_only_its_attached_arguments_is_called_per_epoch() -> None:
    attached = "trainer.add_event_handler(Events.EPOCH_COMPLETED, step_schedule, scheduler)"
    assert codes(OWN_UPDATE_METHOD.format(stepped="pass", attached=attached)) == []
    attached = attached.replace("EPOCH_COMPLETED", "ITERATION_COMPLETED")
    assert codes(OWN_UPDATE_METHOD.format(stepped="pass", attached=attached)) == ["LRD002"]


# 2. A model factory that imports the model class inside the function (`from .sr import SR`
# in `create_model`), called from a driver whose own text names no scheduler: the driver is
# followed into the factory's local import (it was not checked for flow at all). The base
# class steps every scheduler in `update_lr()`, which the loop calls before `optimize()`:
# LRD001.

FACTORY_FILES = {
    "models/base.py": """
        class Base:
            def __init__(self, opt):
                self.opt = opt
                self.schedulers = []
                self.optimizers = []

            def optimize(self, step):
                pass

            def update_lr(self, cur_iter, warmup=-1):
                for sched in self.schedulers:
                    sched.step()
    """,
    "models/sr.py": """
        import torch
        from torch.optim import lr_scheduler
        from .base import Base


        class SR(Base):
            def __init__(self, opt):
                super().__init__(opt)
                self.net = torch.nn.Linear(4, 4)
                self.opt_g = torch.optim.Adam(self.net.parameters(), lr=1e-4)
                self.optimizers.append(self.opt_g)
                for optimizer in self.optimizers:
                    self.schedulers.append(lr_scheduler.MultiStepLR(optimizer, [100000, 200000]))

            def feed(self, data):
                self.x = data

            def optimize(self, step):
                self.opt_g.zero_grad()
                self.net(self.x).sum().backward()
                self.opt_g.step()
    """,
    "models/__init__.py": """
        def create_model(opt):
            from .sr import SR
            return SR(opt)
    """,
    "train.py": """
        import json
        import sys

        from models import create_model


        def main(opt, loader, total_iters, total_epochs):
            model = create_model(opt)
            current = 0
            for epoch in range(total_epochs):
                for data in loader:
                    current += 1
                    if current > total_iters:
                        break
                    {body}


        if __name__ == "__main__":
            with open(sys.argv[1]) as f:
                main(json.load(f), [], 300000, 100)
    """,
}

_LR_FIRST = """model.update_lr(current, warmup=-1)
                    model.feed(data)
                    model.optimize(current)"""
_LR_LAST = """model.feed(data)
                    model.optimize(current)
                    model.update_lr(current, warmup=-1)"""


def test_factory_importing_the_model_class_locally_is_followed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {**FACTORY_FILES, "train.py": FACTORY_FILES["train.py"].format(body=_LR_FIRST)}
    assert project(tmp_path, monkeypatch, files) == ["LRD001"]


def test_factory_model_stepping_schedulers_after_the_update_is_fine(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {**FACTORY_FILES, "train.py": FACTORY_FILES["train.py"].format(body=_LR_LAST)}
    assert project(tmp_path, monkeypatch, files) == []


# 3. A trainer class hierarchy with no driver in the project's files: `__init__` holds a
# placeholder (`self.lr_scheduler = None`), a base-class setup method assigns the objects
# (`self.optimizer, self.lr_scheduler = make_optimizer(...)`), and the subclass's per-batch
# method steps the scheduler. Entry points traced before the setup method saw None; they are
# traced again with the objects in place. `epos` (an abbreviation of epochs) counts epochs.

HIERARCHY_FILES = {
    "trainers/base.py": """
        from torch import optim
        from torch.optim import lr_scheduler


        def make_optimizer(model, conf):
            optimizer = optim.Adam(model.parameters(), lr=conf.lr)
            scheduler = lr_scheduler.{cls}(optimizer, {horizon})
            return optimizer, scheduler


        class BaseTrainer:
            def __init__(self):
                self.model = None
                self.conf = None
                self.loader = None
                self.optimizer = None
                self.lr_scheduler = None

            def setup(self, model, conf, loader):
                self.model = model
                self.conf = conf
                self.loader = loader
                self.reset()

            def reset(self):
                self.optimizer, self.lr_scheduler = make_optimizer(self.model, self.conf)

            def train_epoch(self, epoch):
                raise NotImplementedError
    """,
    "trainers/basic.py": """
        from trainers.base import BaseTrainer


        class BasicTrainer(BaseTrainer):
            def train_epoch(self, epoch):
                for x, y in self.loader:
                    self.train_batch(x, y)

            def train_batch(self, x, y):
                self.optimizer.zero_grad()
                loss = self.model(x, y)
                loss.backward()
                self.optimizer.step()
                if self.lr_scheduler:
                    self.lr_scheduler.step()
    """,
}


def _hierarchy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cls: str,
               horizon: str) -> list[str]:
    files = dict(HIERARCHY_FILES)
    files["trainers/base.py"] = files["trainers/base.py"].format(cls=cls, horizon=horizon)
    return project(tmp_path, monkeypatch, files, main="trainers/basic.py")


def test_placeholder_scheduler_set_by_a_base_setup_method_stepped_per_batch_is_lrd002(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _hierarchy(tmp_path, monkeypatch, "CosineAnnealingLR", "T_max=conf.epos") \
        == ["LRD002"]


def test_placeholder_scheduler_sized_in_batches_stepped_per_batch_is_fine(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _hierarchy(tmp_path, monkeypatch, "CosineAnnealingLR", "T_max=conf.total_steps") \
        == []


# 4. A package's `__init__.py` holding the project's shared imports (a notebook split into
# files): `from torch.cuda import amp` there, unused by the file itself, is imported for the
# package's modules (`amp.GradScaler()`, `amp.autocast()` elsewhere): LRD101 at the import.
# The old-torch side of a fallback stays silent, and so does an unused import in a plain
# module (nothing re-exports it).

SHARED_IMPORTS = """
    import torch
    import torch.nn as nn
    from torch.optim import lr_scheduler
    {imports}
"""


def test_old_amp_imported_in_a_package_init_is_lrd101() -> None:
    source = SHARED_IMPORTS.format(imports="from torch.cuda import amp")
    assert findings(source, "pkg/__init__.py") == [("LRD101", 5)]
    source = SHARED_IMPORTS.format(imports="from torch.cuda.amp import GradScaler, autocast")
    assert findings(source, "pkg/__init__.py") == [("LRD101", 5)]


def test_old_amp_fallback_or_plain_module_import_is_silent() -> None:
    fallback = """try:
        from torch.amp import GradScaler
    except ImportError:
        from torch.cuda.amp import GradScaler"""
    assert findings(SHARED_IMPORTS.format(imports=fallback), "pkg/__init__.py") == []
    plain = SHARED_IMPORTS.format(imports="from torch.cuda import amp")
    assert findings(plain, "pkg/helpers.py") == []
    assert findings(SHARED_IMPORTS.format(imports="from torch import amp"),
                    "pkg/__init__.py") == []


# 7. `while epoch < epochs:` with `epoch += 1` once per pass: `epoch` is the loop's pass
# counter, as a `for epoch in range(...)` target is. `scheduler.step(epoch)` there moves a
# batch-sized schedule once per epoch (LRD003); a position counted in batches is left alone.

WHILE_EPOCHS = """
    import torch

    model = torch.nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = torch.utils.data.DataLoader(torch.randn(80, 4), batch_size=8)
    epochs = 30
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, 0.1,
                                                    total_steps=epochs * len(loader))
    epoch = 0
    while epoch < epochs:
        for batch in loader:
            optimizer.zero_grad()
            model(batch).sum().backward()
            optimizer.step()
        scheduler.step({position})
        epoch += 1
"""


def test_while_epoch_counter_step_to_the_epoch_is_lrd003() -> None:
    assert "LRD003" in codes(WHILE_EPOCHS.format(position="epoch"))
    assert "LRD003" in codes(WHILE_EPOCHS.format(position="epoch + 1"))


def test_while_epoch_counter_step_to_a_batch_position_is_not_lrd003() -> None:
    assert "LRD003" not in codes(WHILE_EPOCHS.format(position="(epoch + 1) * len(loader)"))
