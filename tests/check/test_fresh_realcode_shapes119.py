"""Shapes seen in the fresh-2026-12zzr117 batch (rcnew117, bench/realcode/README.md): an
untargeted sample of small training programs of 2023-2026 (course projects, theses, hobby
fine-tunes, competition entries).

Programs written for these tests; no third-party code.

One false alarm of the batch, fixed. A challenge entry keeps its settings in a config class
whose ``__init__`` stores ``self.EPOCHS = 60`` and ``self.DOWNSTEPS = [60, 80]`` and, between
the stores, makes its output directory (``if not self.OUT.exists(): self.OUT.mkdir()``); the
driver logs ``for k, v in vars(config).items()`` and steps ``MultiStepLR(milestones=
config.DOWNSTEPS)`` once per epoch of ``range(config.EPOCHS)``. LRD003 took the milestones for
batches from the word "STEPS" and could not read the numbers that say otherwise, for three
reasons, each fixed by what the code does:

- a record class's ``__init__`` had to hold nothing but ``self.x = ...`` stores: a statement
  that binds none of the instance's attributes (a directory made, a print) now leaves the
  stores readable; one that stores into the instance under a test, calls its methods or hands
  it on whole still leaves its values unknown;
- ``vars(config)`` anywhere in the module counted as a change of the config: it now counts
  only when the mapping is changed (``vars(c).update(...)``, ``vars(c)[k] = v``) or kept under
  a name; reading it (``.items()``, ``json.dump(vars(c), f)``) changes nothing;
- MultiStepLR milestones named in steps but stated as numbers the epoch loop's passes reach
  (the first within them, none beyond twice them: ``[60, 80]`` of 60 epochs) are epochs, later
  ones being decays the run stops short of; ``[30, 5000]`` still says batches.

The batch's other dev miss (LRD010 on a ``CosineAnnealingLR(T_max=10)`` stepped per batch for
250 epochs, which lrdoctor reports as LRD002) is left: the project's earlier cases label that
shape LRD002 with the overrun as its consequence (see the README section).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, project_codes

CONFIG_MKDIR = '''
from pathlib import Path


class Configuration(object):
    def __init__(self) -> None:
        self.WORKDIR = Path("./work")
        self.OUT_DIR = self.WORKDIR / "results"
        if not self.OUT_DIR.exists():
            self.OUT_DIR.mkdir(parents=True)
        self.EPOCHS = 60
        self.LEARNING_RATE = 1e-4
        self.DOWNSTEPS = {milestones}


config = Configuration()
'''

DRIVER = '''
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from experiment_config import config


def train():
{prelude}    data = TensorDataset(torch.randn(256, 8), torch.randn(256, 1))
    loader = DataLoader(data, batch_size=16, shuffle=True)
    model = nn.Linear(8, 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.LEARNING_RATE)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=config.DOWNSTEPS,
                                                     gamma=0.3)
    epochs = config.EPOCHS
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
        scheduler.step()


if __name__ == "__main__":
    train()
'''

LOG_VARS = '''    for key, value in vars(config).items():
        print(key, value)
'''


def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, milestones: str,
         prelude: str = "", config: str = CONFIG_MKDIR) -> list[str]:
    found = check_project(tmp_path, monkeypatch, {
        "experiment_config.py": config.format(milestones=milestones),
        "train.py": DRIVER.format(prelude=prelude),
    })
    return project_codes(found)


# -- the batch's shape: milestones named in steps, numbers of the epoch loop's size ---------

def test_milestones_reaching_past_the_end_with_mkdir_and_vars_log_are_epochs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the challenge entry: [60, 80] of 60 epochs, an `if` making a directory in __init__, the
    # config logged through vars(): a decay at the last epoch and one the run stops short of
    assert _run(tmp_path, monkeypatch, "[60, 80]", LOG_VARS) == []


CONFIG_PLAIN = '''
class Configuration(object):
    def __init__(self) -> None:
        self.EPOCHS = 60
        self.LEARNING_RATE = 1e-4
        self.DOWNSTEPS = {milestones}


config = Configuration()
'''


def test_milestones_reaching_past_the_end_of_a_plain_config(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the milestones alone: the first decay at the last epoch, the second beyond the run
    assert _run(tmp_path, monkeypatch, "[60, 80]", config=CONFIG_PLAIN) == []


def test_milestones_within_the_passes_behind_a_mkdir_in_init(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _run(tmp_path, monkeypatch, "[30, 50]") == []


def test_milestones_within_the_passes_with_the_config_logged_through_vars(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _run(tmp_path, monkeypatch, "[30, 50]", LOG_VARS) == []


def test_milestones_far_beyond_the_passes_still_count_batches(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a decay at 3000 and 5000 steps stepped once per epoch of 60: batches, far from complete
    assert _run(tmp_path, monkeypatch, "[3000, 5000]", LOG_VARS) == ["LRD003"]


def test_one_milestone_far_beyond_the_passes_still_counts_batches(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _run(tmp_path, monkeypatch, "[30, 5000]") == ["LRD003"]


def test_milestones_all_beyond_the_passes_still_count_batches(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the first decay at 90 of 60 epochs: nothing says these are epochs
    assert _run(tmp_path, monkeypatch, "[90, 120]") == ["LRD003"]


# -- what still leaves the config's values unknown ---------------------------------------

def test_config_changed_through_vars_update_is_not_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    prelude = '''    vars(config).update({"DOWNSTEPS": [3000, 5000]})
'''
    assert _run(tmp_path, monkeypatch, "[30, 50]", prelude) == ["LRD003"]


def test_config_dict_kept_under_a_name_is_not_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    prelude = '''    settings = vars(config)
    settings["DOWNSTEPS"] = [3000, 5000]
'''
    assert _run(tmp_path, monkeypatch, "[30, 50]", prelude) == ["LRD003"]


CONFIG_STORE_UNDER_TEST = '''
import os


class Configuration(object):
    def __init__(self) -> None:
        self.EPOCHS = 60
        self.LEARNING_RATE = 1e-4
        self.DOWNSTEPS = {milestones}
        if os.environ.get("LONG_RUN"):
            self.DOWNSTEPS = [3000, 5000]


config = Configuration()
'''

CONFIG_CALLS_A_METHOD = '''
class Configuration(object):
    def __init__(self) -> None:
        self.EPOCHS = 60
        self.LEARNING_RATE = 1e-4
        self.DOWNSTEPS = {milestones}
        self.finish()

    def finish(self):
        self.DOWNSTEPS = [m * 100 for m in self.DOWNSTEPS]


config = Configuration()
'''

CONFIG_HANDS_ITSELF_ON = '''
REGISTRY = []


class Configuration(object):
    def __init__(self) -> None:
        self.EPOCHS = 60
        self.LEARNING_RATE = 1e-4
        self.DOWNSTEPS = {milestones}
        REGISTRY.append(self)


config = Configuration()
'''


@pytest.mark.parametrize("config", [CONFIG_STORE_UNDER_TEST, CONFIG_CALLS_A_METHOD,
                                    CONFIG_HANDS_ITSELF_ON],
                         ids=["store-under-a-test", "method-call", "handed-on"])
def test_init_that_may_change_the_values_leaves_them_unknown(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: str) -> None:
    # the word "STEPS" says batches and the numbers are not known: reported as before
    assert _run(tmp_path, monkeypatch, "[30, 50]", config=config) == ["LRD003"]


CONFIG_PRINTS = '''
import os


class Configuration(object):
    def __init__(self) -> None:
        self.LOG_DIR = "logs"
        os.makedirs(self.LOG_DIR, exist_ok=True)
        print("config loaded from", __file__)
        self.EPOCHS = 60
        self.LEARNING_RATE = 1e-4
        self.DOWNSTEPS = {milestones}


config = Configuration()
'''


def test_init_with_calls_that_bind_nothing_keeps_the_values(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _run(tmp_path, monkeypatch, "[30, 50]", config=CONFIG_PRINTS) == []
    assert project_codes(check_project(tmp_path / "far", monkeypatch, {
        "experiment_config.py": CONFIG_PRINTS.format(milestones="[3000, 5000]"),
        "train.py": DRIVER.format(prelude=""),
    })) == ["LRD003"]


# -- the same numbers as a module constant: a number, not a word, and silent as before ------

def test_milestones_of_a_module_constant_reaching_past_the_end() -> None:
    source = '''
        import torch
        from torch import nn
        from torch.utils.data import DataLoader, TensorDataset

        EPOCHS = 60
        DECAY_STEPS = [60, 80]

        loader = DataLoader(TensorDataset(torch.randn(64, 8), torch.randn(64, 1)), batch_size=8)
        model = nn.Linear(8, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=DECAY_STEPS)
        for epoch in range(EPOCHS):
            for x, y in loader:
                optimizer.zero_grad()
                nn.functional.mse_loss(model(x), y).backward()
                optimizer.step()
            scheduler.step()
    '''
    assert codes(source) == []


# -- the same reading for another code: a plateau's mode from such a config ----------------

PLATEAU_FROM_CONFIG = '''
    import os

    import torch
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset


    class Config(object):
        def __init__(self):
            self.OUT = "runs"
            if not os.path.isdir(self.OUT):
                os.makedirs(self.OUT)
            self.EPOCHS = 30
            self.MODE = "{mode}"


    cfg = Config()
    for key, value in vars(cfg).items():
        print(key, value)

    loader = DataLoader(TensorDataset(torch.randn(64, 8), torch.randn(64, 1)), batch_size=8)
    val_loader = DataLoader(TensorDataset(torch.randn(16, 8), torch.randn(16, 1)), batch_size=8)
    model = nn.Linear(8, 1)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode=cfg.MODE, patience=2)
    for epoch in range(cfg.EPOCHS):
        for x, y in loader:
            opt.zero_grad()
            nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        with torch.no_grad():
            val_loss = sum(nn.functional.mse_loss(model(x), y).item() for x, y in val_loader)
        sched.step(val_loss)
'''


def test_plateau_mode_max_from_a_config_with_mkdir_and_vars_log_is_read() -> None:
    # mode='max' on a validation loss, stated by a config class that makes a directory
    assert codes(PLATEAU_FROM_CONFIG.format(mode="max")) == ["LRD004"]


def test_plateau_mode_min_from_the_same_config_is_silent() -> None:
    assert codes(PLATEAU_FROM_CONFIG.format(mode="min")) == []
