"""The values that decide a finding mean the same wherever the program keeps them (issue 7,
meta4's config-object metamorphic tests): a literal written at the call, a class constant
(`class Knobs: mode = "max"`), a dataclass default, a record built by a library from a dict
(`SimpleNamespace(**{...})`, `EasyDict({...})`), a class whose `__init__(self)` only stores
values, or a dict read by `cfg["x"]` / `cfg.get("x", d)`.

Each test writes the program with the value in a config object and the plain program (the
control, which must be reported), and a correct variant that must stay silent. A value that
can change (a class attribute stored elsewhere) stays unknown."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project


def found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> set[str]:
    return {code for _, _, code in check_project(tmp_path, monkeypatch, {"train.py": text})}


# -- a cosine horizon sized in epochs, stepped per batch (LRD002), its T_max kept in a config --

COSINE = """
import torch
{config}
train_loader = torch.utils.data.DataLoader(dataset, batch_size=8, shuffle=True)
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max={tmax})

for epoch in range(100):
    for x, y in train_loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        {per_batch}scheduler.step()
    {per_epoch}
"""

RECORDS = {
    "literal": ("", "10"),
    "named config class": ("class Config:\n    T_max = 10", "Config.T_max"),
    "dataclass": ("import dataclasses\n\n@dataclasses.dataclass\nclass Hyper:\n"
                  "    T_max: int = 10\n    milestones: list = dataclasses.field("
                  "default_factory=lambda: [3, 6])\n\nhp = Hyper()", "hp.T_max"),
    "init-only record": ("class Knobs:\n    def __init__(self):\n        self.T_max = 10\n"
                         "\nknobs = Knobs()", "knobs.T_max"),
    "SimpleNamespace": ("import types\nhp = types.SimpleNamespace(**{'T_max': 10})",
                        "hp.T_max"),
    "EasyDict": ("from easydict import EasyDict\nhp = EasyDict({'T_max': 10})", "hp.T_max"),
    "OmegaConf": ("from omegaconf import OmegaConf\nhp = OmegaConf.create({'T_max': 10})",
                  "hp.T_max"),
    "dict item": ("hp = {'T_max': 10}", "hp['T_max']"),
    "dict get": ("hp = {'T_max': 10}", "hp.get('T_max', 10)"),
}


@pytest.mark.parametrize("style", sorted(RECORDS))
def test_cosine_horizon_kept_in_a_config_is_read(style: str, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    config, tmax = RECORDS[style]
    text = COSINE.format(config=config, tmax=tmax, per_batch="", per_epoch="")
    assert "LRD002" in found(tmp_path, monkeypatch, text)


@pytest.mark.parametrize("style", sorted(RECORDS))
def test_cosine_horizon_kept_in_a_config_stepped_per_epoch_is_fine(
        style: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config, tmax = RECORDS[style]
    text = COSINE.format(config=config, tmax=tmax, per_batch="# ", per_epoch="scheduler.step()")
    assert "LRD002" not in found(tmp_path, monkeypatch, text)


def test_a_class_with_behaviour_is_no_record(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    # a class that computes (a method besides `__init__(self)`, an `__init__` that takes
    # arguments) states no value by its body: its T_max is not read as 10
    config = ("class Knobs:\n    def __init__(self, t):\n        self.T_max = t\n"
              "    def scale(self):\n        return 2\n\nknobs = Knobs(10)")
    text = COSINE.format(config=config, tmax="knobs.T_max", per_batch="", per_epoch="")
    assert "LRD002" not in found(tmp_path, monkeypatch, text)


# -- ReduceLROnPlateau's mode kept in a class constant (LRD004) ------------------------------

PLATEAU = """
import torch
{config}
train_loader = torch.utils.data.DataLoader(dataset, batch_size=8, shuffle=True)
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, {mode}, patience=3)

for epoch in range(100):
    for x, y in train_loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
    val_loss = 0.0
    with torch.no_grad():
        for x, y in val_loader:
            val_loss += torch.nn.functional.mse_loss(model(x), y).item()
    scheduler.step(val_loss)
"""


@pytest.mark.parametrize("config,mode", [
    ("", "'max'"),
    ("class Knobs:\n    plateau_mode = 'max'", "Knobs.plateau_mode"),
    ("class Knobs:\n    plateau_mode = 'max'", "mode=Knobs.plateau_mode"),
])
def test_plateau_mode_from_a_class_constant(config: str, mode: str, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    text = PLATEAU.format(config=config, mode=mode)
    assert "LRD004" in found(tmp_path, monkeypatch, text)


def test_plateau_mode_min_from_a_class_constant_is_fine(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = PLATEAU.format(config="class Knobs:\n    plateau_mode = 'min'",
                          mode="Knobs.plateau_mode")
    assert "LRD004" not in found(tmp_path, monkeypatch, text)


# -- autocast switched by a class constant (LRD103) -----------------------------------------

AUTOCAST = """
import torch
{config}
train_loader = torch.utils.data.DataLoader(dataset, batch_size=8, shuffle=True)
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = torch.nn.BCELoss()
for x, y in train_loader:
    optimizer.zero_grad()
    with torch.autocast("cuda", dtype=torch.float16, enabled={enabled}):
        loss = criterion(torch.sigmoid(model(x)), y)
    loss.backward()
    optimizer.step()
{after}
"""


@pytest.mark.parametrize("config,enabled,after", [
    ("", "True", ""),
    ("class Knobs:\n    amp = True", "Knobs.amp", ""),
    # stored elsewhere: the class constant is not the value that holds
    ("class Knobs:\n    amp = False", "Knobs.amp", "Knobs.amp = torch.cuda.is_available()"),
])
def test_autocast_on_by_a_class_constant_is_reported(config: str, enabled: str, after: str,
                                                     tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    text = AUTOCAST.format(config=config, enabled=enabled, after=after)
    assert "LRD103" in found(tmp_path, monkeypatch, text)


@pytest.mark.parametrize("config,enabled", [
    ("", "False"),
    ("class Knobs:\n    amp = False", "Knobs.amp"),
])
def test_autocast_off_by_a_class_constant_is_fine(config: str, enabled: str, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    text = AUTOCAST.format(config=config, enabled=enabled, after="")
    assert "LRD103" not in found(tmp_path, monkeypatch, text)


# -- the scheduler chosen by a config string through if/elif ---------------------------------

CHOSEN = """
import torch
from torch.optim.lr_scheduler import LambdaLR, ReduceLROnPlateau, StepLR

class Knobs:
    schedule = {choice!r}

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
train_loader = torch.utils.data.DataLoader(dataset, batch_size=8, shuffle=True)
if Knobs.schedule == "step":
    scheduler = StepLR(optimizer, step_size=30)
elif Knobs.schedule == "plateau":
    scheduler = ReduceLROnPlateau(optimizer, "min")
elif Knobs.schedule == "constant":
    scheduler = LambdaLR(optimizer, lambda e: 1.0)
else:
    raise ValueError(Knobs.schedule)

for epoch in range(100):
    for x, y in train_loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
    {step}
"""

PLAIN_STEP = """
import torch
from torch.optim.lr_scheduler import StepLR

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = StepLR(optimizer, step_size=30)
train_loader = torch.utils.data.DataLoader(dataset, batch_size=8, shuffle=True)

for epoch in range(100):
    for x, y in train_loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
    scheduler.step()
    print(scheduler.get_lr())
"""


def test_get_lr_of_a_scheduler_chosen_by_a_class_constant(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "LRD015" in found(tmp_path / "plain", monkeypatch, PLAIN_STEP)
    text = CHOSEN.format(choice="step", step="scheduler.step()\n    print(scheduler.get_lr())")
    assert "LRD015" in found(tmp_path / "chosen", monkeypatch, text)


def test_plateau_chosen_by_a_class_constant_is_no_other_scheduler(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the arms the constant does not take never build their scheduler: the metric given to
    # the plateau's step() is no deprecated epoch argument of a LambdaLR
    text = CHOSEN.format(choice="plateau", step="scheduler.step(loss.item())")
    assert "LRD006" not in found(tmp_path, monkeypatch, text)


def test_class_constant_stored_elsewhere_decides_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `Knobs.schedule` is set again from the command line: every arm may run (the control for
    # the test above: the model still sees the LambdaLR then)
    text = CHOSEN.format(choice="plateau", step="scheduler.step(loss.item())") + \
        "\nimport sys\nKnobs.schedule = sys.argv[1]\n"
    assert "LRD006" in found(tmp_path, monkeypatch, text)


# -- a warm-up counted by a setting read by its key (LRD003) ---------------------------------

WARMUP = """
import torch
{config}
train_loader = torch.utils.data.DataLoader(dataset, batch_size=8, shuffle=True)
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scheduler = torch.optim.lr_scheduler.LambdaLR(
    optimizer, lambda step: min(1.0, (step + 1) / {warmup}))

for epoch in range(10):
    for x, y in train_loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        {per_batch}
    {per_epoch}
"""


@pytest.mark.parametrize("config,warmup", [
    ("warmup_steps = 500", "warmup_steps"),
    ("hp = {'warmup_steps': 500}", "hp['warmup_steps']"),
    ("hp = {'warmup_steps': 500}", "hp.get('warmup_steps', 500)"),
])
def test_warmup_in_steps_read_by_key(config: str, warmup: str, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    text = WARMUP.format(config=config, warmup=warmup, per_batch="",
                         per_epoch="scheduler.step()")
    assert "LRD003" in found(tmp_path / "epoch", monkeypatch, text)
    text = WARMUP.format(config=config, warmup=warmup, per_batch="scheduler.step()",
                         per_epoch="")
    assert "LRD003" not in found(tmp_path / "batch", monkeypatch, text)
