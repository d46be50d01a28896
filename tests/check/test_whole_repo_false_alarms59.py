"""Shapes found by checking the dev repositories of bench/realcode as whole trees
(`lrdoctor check .` from the root, fphunt69), as a user runs it on a clone.

- a LightningModule whose ReduceLROnPlateau is returned from ``configure_optimizers`` to
  watch a value the module logs in its training hooks (``"monitor": "train_loss"``) while its
  validation hooks log ``val_loss``, or with a mode against the monitored name: found when
  the module's file is checked alone, lost when the file that builds the module and hands it
  to ``Trainer.fit`` (an estimator, a launcher script) is checked beside it. That file's trace
  enters ``configure_optimizers``, so the module's findings there were left to it, but these
  two rules read the module's own classes (and its own file's Lightning returns): the other
  trace never makes them (a forecasting library's DeepAR and TFT modules; its MQF2 module,
  not fitted that way, kept its finding).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, project_codes

MODULE = """
    import pytorch_lightning as pl
    import torch
    from torch.optim.lr_scheduler import ReduceLROnPlateau


    class ForecastModule(pl.LightningModule):
        def __init__(self, net, lr=1e-3, patience=10):
            super().__init__()
            self.net = net
            self.lr = lr
            self.patience = patience

        def training_step(self, batch, batch_idx):
            train_loss = self.net(batch).mean()
            self.log("train_loss", train_loss, on_epoch=True, on_step=False)
            return train_loss

        def validation_step(self, batch, batch_idx):
            val_loss = self.net(batch).mean()
            self.log("val_loss", val_loss, on_epoch=True, on_step=False)
            ACC_LOG

        def configure_optimizers(self):
            optimizer = torch.optim.Adam(self.net.parameters(), lr=self.lr)
            return {
                "optimizer": optimizer,
                "lr_scheduler": {
                    "scheduler": ReduceLROnPlateau(optimizer, mode="MODE", factor=0.5,
                                                   patience=self.patience),
                    "monitor": "MONITOR",
                },
            }
"""

# the file that builds the module and fits it: a base estimator's train_model
ESTIMATOR = """
    from typing import Optional

    import pytorch_lightning as pl

    from forecast.module import ForecastModule


    class Estimator:
        def __init__(self, net, trainer_kwargs=None):
            self.net = net
            self.trainer_kwargs = trainer_kwargs or {}

        def create_module(self):
            return ForecastModule(self.net)

        def train_model(self, train_loader, val_loader: Optional[object] = None):
            module = self.create_module()
            monitor = "train_loss" if val_loader is None else "val_loss"
            checkpoint = pl.callbacks.ModelCheckpoint(monitor=monitor, mode="min")
            trainer = pl.Trainer(callbacks=[checkpoint], **self.trainer_kwargs)
            trainer.fit(model=module, train_dataloaders=train_loader, val_dataloaders=val_loader)
            return module
"""

# a launcher script that fits the module directly
LAUNCH = """
    import pytorch_lightning as pl
    import torch

    from forecast.module import ForecastModule


    def main(train_loader, val_loader):
        module = ForecastModule(torch.nn.Linear(8, 1))
        pl.Trainer(max_epochs=20).fit(module, train_loader, val_loader)


    if __name__ == "__main__":
        main(None, None)
"""


def _module(monitor: str, mode: str = "min", acc: bool = False) -> str:
    return MODULE.replace("MONITOR", monitor).replace("MODE", mode).replace(
        "ACC_LOG", 'self.log("val_acc", (self.net(batch) > 0).float().mean())' if acc
        else "return val_loss")


def _found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: str,
           driver: str | None) -> list[tuple[str, int, str]]:
    files = {"forecast/__init__.py": "", "forecast/module.py": module}
    if driver is not None:
        files["forecast/estimator.py"] = driver
    return [f for f in check_project(tmp_path, monkeypatch, files)
            if f[0] == "forecast/module.py"]


@pytest.mark.parametrize("driver", [None, ESTIMATOR, LAUNCH], ids=["alone", "estimator", "launcher"])
def test_plateau_on_the_training_loss_is_found_beside_the_file_that_fits_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, driver: str | None) -> None:
    found = _found(tmp_path, monkeypatch, _module("train_loss"), driver)
    assert project_codes(found) == ["LRD004"]
    assert found[0][1] == MODULE.splitlines().index(
        next(line for line in MODULE.splitlines() if '"monitor"' in line)) + 1


@pytest.mark.parametrize("driver", [None, ESTIMATOR, LAUNCH], ids=["alone", "estimator", "launcher"])
def test_plateau_on_the_validation_loss_stays_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, driver: str | None) -> None:
    assert _found(tmp_path, monkeypatch, _module("val_loss"), driver) == []


@pytest.mark.parametrize("driver", [None, ESTIMATOR, LAUNCH], ids=["alone", "estimator", "launcher"])
def test_plateau_mode_against_the_monitored_accuracy_is_found_beside_the_fitting_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, driver: str | None) -> None:
    found = _found(tmp_path, monkeypatch, _module("val_acc", mode="min", acc=True), driver)
    assert project_codes(found) == ["LRD004"]


@pytest.mark.parametrize("driver", [None, ESTIMATOR, LAUNCH], ids=["alone", "estimator", "launcher"])
def test_plateau_mode_max_on_the_monitored_accuracy_stays_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, driver: str | None) -> None:
    assert _found(tmp_path, monkeypatch, _module("val_acc", mode="max", acc=True), driver) == []


HOOK_MODULE = """
    import pytorch_lightning as pl
    import torch
    from torch.optim.lr_scheduler import ReduceLROnPlateau


    class ForecastModule(pl.LightningModule):
        def __init__(self, net):
            super().__init__()
            self.net = net

        def training_step(self, batch, batch_idx):
            return self.net(batch).mean()

        def validation_step(self, batch, batch_idx):
            self.log("val_loss", self.net(batch).mean())

        def configure_optimizers(self):
            optimizer = torch.optim.Adam(self.net.parameters(), lr=1e-3)
            scheduler = ReduceLROnPlateau(optimizer, mode="min")
            return {"optimizer": optimizer,
                    "lr_scheduler": {"scheduler": scheduler, "monitor": "val_loss"}}

        def lr_scheduler_step(self, scheduler, metric):
            STEP
"""


@pytest.mark.parametrize("driver", [None, ESTIMATOR, LAUNCH], ids=["alone", "estimator", "launcher"])
@pytest.mark.parametrize("step, expected", [("scheduler.step()", ["LRD004"]),
                                            ("scheduler.step(metric)", [])],
                         ids=["without-metric", "with-metric"])
def test_plateau_hook_beside_the_fitting_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, driver: str | None, step: str,
        expected: list[str]) -> None:
    found = _found(tmp_path, monkeypatch, HOOK_MODULE.replace("STEP", step), driver)
    assert project_codes(found) == expected


# a plateau handed a running sum of the training loss under a name that says nothing (a
# probe of the whole-tree hunt: `total += loss.item()` in the training pass, the validation
# loss computed beside it and left unused)
ENGINE = """
    import torch


    def evaluate(model, loader):
        return sum(model(x).sum().item() for x in loader)


    def train(model, loader, optimizer, scheduler, epochs, val_loader):
        for epoch in range(epochs):
            total = 0.0
            for x in loader:
                optimizer.zero_grad()
                loss = model(x).sum()
                loss.backward()
                optimizer.step()
                total += ADDED
            val_loss = evaluate(model, val_loader)
            scheduler.step(METRIC)
"""

LAUNCH_ENGINE = """
    import torch
    from torch.optim.lr_scheduler import ReduceLROnPlateau

    from engine import train


    def main():
        model = torch.nn.Linear(4, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        loader = [torch.randn(8, 4) for _ in range(50)]
        val_loader = [torch.randn(8, 4) for _ in range(5)]
        train(model, loader, optimizer, ReduceLROnPlateau(optimizer), 30, val_loader)


    if __name__ == "__main__":
        main()
"""


@pytest.mark.parametrize("added, metric, expected", [
    ("loss.item()", "total", ["LRD004"]),
    ("loss.item()", "total / len(loader)", ["LRD004"]),
    ("loss.item() * x.size(0)", "total", ["LRD004"]),
    ("loss.item()", "val_loss", []),
    # a sum of something other than the backpropagated loss says nothing
    ("x.abs().sum().item()", "total", []),
    ("1", "total", []),
], ids=["sum", "mean", "weighted-sum", "validation", "other-sum", "count"])
def test_plateau_on_a_running_sum_of_the_training_loss(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, added: str, metric: str,
        expected: list[str]) -> None:
    engine = ENGINE.replace("ADDED", added).replace("METRIC", metric)
    found = check_project(tmp_path, monkeypatch, {"engine.py": engine, "launch.py": LAUNCH_ENGINE})
    assert [c for p, _, c in found if p == "engine.py"] == expected


def test_running_sum_rebound_to_another_value_is_not_the_training_loss(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = ENGINE.replace("ADDED", "loss.item()").replace("METRIC", "total").replace(
        "val_loss = evaluate(model, val_loader)",
        "val_loss = evaluate(model, val_loader)\n            total = val_loss")
    found = check_project(tmp_path, monkeypatch, {"engine.py": engine, "launch.py": LAUNCH_ENGINE})
    assert [c for p, _, c in found if p == "engine.py"] == []


def test_running_sum_without_a_validation_metric_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = ENGINE.replace("ADDED", "loss.item()").replace("METRIC", "total").replace(
        "val_loss = evaluate(model, val_loader)", "pass")
    found = check_project(tmp_path, monkeypatch, {"engine.py": engine, "launch.py": LAUNCH_ENGINE})
    assert [c for p, _, c in found if p == "engine.py"] == []
