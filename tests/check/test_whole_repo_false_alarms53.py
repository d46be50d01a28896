"""fphunt63: settings read from a JSON config, and a scheduler class picked by the name a
config states (``getattr(torch.optim.lr_scheduler, cfg["lr_scheduler"]["type"])(opt,
**cfg["lr_scheduler"]["args"])``).

1. A JSON file is read as data (``json.load`` / ``json.loads`` of a bounded read, never run),
   as a YAML file is: from a path the program states (a literal, a constant, an argparse
   default), or, when the path is chosen at run time (``--config`` with no default, a
   parameter), from the project's JSON files it can name. When several could be the one used,
   only what every one of them states alike is known: a value two configs state differently
   is unknown, and so is a whole mapping whose keys differ. A JSON file the code names by its
   own literal path elsewhere (``"logger/logger_config.json"``) is that code's file, not a
   candidate for the option.

2. ``getattr(torch.optim.lr_scheduler, name)`` with a name known for certain (the config's
   value, a literal, an option's default) is that class of torch's; called with ``*args`` /
   ``**mapping`` whose contents are known, it is the call written out with the mapping's keys
   as keywords, so the horizon and the stepping are judged as for a written call.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .helpers import check_project, project_codes

_SCRIPT = """
import argparse
import json

import torch
from torch import nn
from torch.optim import lr_scheduler
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("-c", "--config", default=None, type=str)
args = parser.parse_args()
with open(args.config) as f:
    cfg = json.load(f)
model = nn.Linear(4, 1)
loader = DataLoader(TensorDataset(torch.randn(64, 4), torch.randn(64, 1)), batch_size=8)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = getattr(lr_scheduler, cfg["lr_scheduler"]["type"])(opt, **cfg["lr_scheduler"]["args"])
for epoch in range(cfg["epochs"]):
    for x, y in loader:
        opt.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()
        {batch}
    {epoch}
"""

_PER_BATCH = {"batch": "sched.step()", "epoch": "pass"}
_PER_EPOCH = {"batch": "pass", "epoch": "sched.step()"}


def _config(kind: str = "StepLR", epochs: int = 100, **params: object) -> str:
    params = params or {"step_size": 30, "gamma": 0.1}
    return json.dumps({"epochs": epochs, "lr_scheduler": {"type": kind, "args": params}})


def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: dict[str, str],
         configs: dict[str, str]) -> list[str]:
    files = {"train.py": _SCRIPT.format(**where), **configs}
    return project_codes(check_project(tmp_path, monkeypatch, files, ["train.py"]))


def test_the_one_json_config_names_the_class_stepped_per_batch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # StepLR(step_size=30) over 100 epochs of 8 batches, stepped per batch: LRD002
    assert _run(tmp_path, monkeypatch, _PER_BATCH, {"config.json": _config()}) == ["LRD002"]


def test_the_one_json_config_stepped_per_epoch_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _run(tmp_path, monkeypatch, _PER_EPOCH, {"config.json": _config()}) == []


def test_configs_that_agree_are_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    configs = {"configs/small.json": _config(), "configs/large.json": _config()}
    assert _run(tmp_path, monkeypatch, _PER_BATCH, configs) == ["LRD002"]


def test_configs_naming_different_classes_are_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # either could be the one run: the class is unknown
    configs = {"configs/step.json": _config(),
               "configs/cosine.json": _config("CosineAnnealingLR", T_max=800)}
    assert _run(tmp_path, monkeypatch, _PER_BATCH, configs) == []


def test_configs_with_different_horizons_are_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # one sizes the StepLR in epochs, the other in batches: the horizon is unknown
    configs = {"configs/a.json": _config(step_size=30, gamma=0.1),
               "configs/b.json": _config(step_size=300, gamma=0.1)}
    assert _run(tmp_path, monkeypatch, _PER_BATCH, configs) == []


def test_configs_whose_keywords_differ_are_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the same class, but not the same keywords: the mapping splatted is unknown whole
    configs = {"configs/a.json": _config(step_size=30, gamma=0.1),
               "configs/b.json": _config(step_size=30)}
    assert _run(tmp_path, monkeypatch, _PER_BATCH, configs) == []


def test_another_json_mapping_in_the_project_makes_it_ambiguous(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `-c data/classes.json` is as possible as `-c config.json` to lrdoctor: nothing agrees
    configs = {"config.json": _config(), "data/classes.json": json.dumps({"cat": 0, "dog": 1})}
    assert _run(tmp_path, monkeypatch, _PER_BATCH, configs) == []


def test_a_json_file_named_by_its_own_literal_is_no_candidate(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the logging setup reads its own file by a literal path: the option names the other one
    logging_setup = ("import json\n\n\ndef setup(path=\"logs/logging.json\"):\n"
                     "    with open(path) as f:\n        return json.load(f)\n")
    configs = {"config.json": _config(), "logs/logging.json": json.dumps({"version": 1}),
               "log_setup.py": logging_setup}
    assert _run(tmp_path, monkeypatch, _PER_BATCH, configs) == ["LRD002"]


def test_a_literal_path_reads_that_file_only(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    # the plateau scheduler named by `config.json`, stepped without its metric: LRD004;
    # another config in the project does not matter, the path is stated
    script = _SCRIPT.format(**_PER_EPOCH).replace("open(args.config)", 'open("config.json")')
    files = {"train.py": script, "config.json": _config("ReduceLROnPlateau", patience=2),
             "configs/other.json": _config()}
    found = project_codes(check_project(tmp_path, monkeypatch, files, ["train.py"]))
    assert found == ["LRD004"]


def test_an_argparse_default_names_the_json_file(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    script = _SCRIPT.format(**_PER_BATCH).replace("default=None", 'default="cfg/main.json"')
    files = {"train.py": script, "cfg/main.json": _config(),
             "cfg/other.json": _config("CosineAnnealingLR", T_max=800)}
    found = project_codes(check_project(tmp_path, monkeypatch, files, ["train.py"]))
    assert found == ["LRD002"]


_PARSER = """
import json
from pathlib import Path


def load(fname):
    fname = Path(fname)
    with fname.open("rt") as handle:
        return json.load(handle)


class Options:
    def __init__(self, path):
        self._data = load(path)

    def __getitem__(self, key):
        return self._data[key]

    def make(self, key, module, *args, **kwargs):
        kind = self[key]["type"]
        params = dict(self[key]["args"])
        params.update(kwargs)
        return getattr(module, kind)(*args, **params)
"""

_TEMPLATE_SCRIPT = """
import sys

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from options import Options

options = Options(sys.argv[1])
model = nn.Linear(4, 1)
loader = DataLoader(TensorDataset(torch.randn(64, 4), torch.randn(64, 1)), batch_size=8)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = options.make("lr_scheduler", torch.optim.lr_scheduler, opt)
for epoch in range(options["epochs"]):
    for x, y in loader:
        opt.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()
        {batch}
    {epoch}
"""


@pytest.mark.parametrize(("where", "expected"), [(_PER_BATCH, ["LRD002"]), (_PER_EPOCH, [])])
def test_a_config_object_building_by_section(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             where: dict[str, str], expected: list[str]) -> None:
    files = {"train.py": _TEMPLATE_SCRIPT.format(**where), "options.py": _PARSER,
             "config.json": _config()}
    assert project_codes(check_project(tmp_path, monkeypatch, files, ["train.py"])) == expected


def test_a_config_object_building_the_plateau_stepped_bare(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {"train.py": _TEMPLATE_SCRIPT.format(**_PER_EPOCH), "options.py": _PARSER,
             "config.json": _config("ReduceLROnPlateau", patience=3)}
    assert project_codes(check_project(tmp_path, monkeypatch, files, ["train.py"])) == ["LRD004"]


_YAML_SCRIPT = """
import torch
import yaml
from torch import nn
from torch.optim import lr_scheduler
from torch.utils.data import DataLoader, TensorDataset

cfg = yaml.safe_load(open("train.yaml"))
model = nn.Linear(4, 1)
loader = DataLoader(TensorDataset(torch.randn(64, 4), torch.randn(64, 1)), batch_size=8)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
cls = getattr(lr_scheduler, cfg["sched"]["name"])
sched = cls(opt, **cfg["sched"]["params"])
for epoch in range(cfg["epochs"]):
    for x, y in loader:
        opt.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()
        {batch}
    {epoch}
"""

_YAML = "epochs: 40\nsched:\n  name: CosineAnnealingLR\n  params:\n    T_max: 40\n"


@pytest.mark.parametrize(("where", "expected"), [(_PER_BATCH, ["LRD002"]), (_PER_EPOCH, [])])
def test_a_yaml_name_picks_the_class(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     where: dict[str, str], expected: list[str]) -> None:
    pytest.importorskip("yaml")
    files = {"train.py": _YAML_SCRIPT.format(**where), "train.yaml": _YAML}
    assert project_codes(check_project(tmp_path, monkeypatch, files, ["train.py"])) == expected


def test_a_name_chosen_at_run_time_is_no_class(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # `--sched` has no default and the mapping is written in the code: the class is unknown
    script = _YAML_SCRIPT.format(**_PER_BATCH).replace(
        'cfg = yaml.safe_load(open("train.yaml"))',
        'import argparse\np = argparse.ArgumentParser()\np.add_argument("--sched")\n'
        'a = p.parse_args()\ncfg = {"epochs": 40, "sched": {"name": a.sched, '
        '"params": {"T_max": 40}}}')
    files = {"train.py": script}
    assert project_codes(check_project(tmp_path, monkeypatch, files, ["train.py"])) == []


def test_a_keyword_the_program_stores_itself_is_not_the_files(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the config's step_size is replaced by one sized in batches before the class is built
    script = _SCRIPT.format(**_PER_BATCH).replace(
        "opt = torch.optim.SGD",
        'cfg["lr_scheduler"]["args"]["step_size"] = cfg["epochs"] * len(loader) // 2\n'
        "opt = torch.optim.SGD")
    files = {"train.py": script, "config.json": _config()}
    assert project_codes(check_project(tmp_path, monkeypatch, files, ["train.py"])) == []


def test_a_program_testing_the_name_itself_is_left_to_its_tests(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # OneCycleLR per batch, every other class per epoch, by tests of the name: the trace does
    # not decide those tests, so the class the config names is not taken (no LRD003 on the
    # per-epoch step, which never runs for OneCycleLR)
    script = """
import torch
import yaml
from torch import nn
from torch.optim import lr_scheduler
from torch.utils.data import DataLoader, TensorDataset

cfg = yaml.safe_load(open("train.yaml"))
model = nn.Linear(4, 1)
loader = DataLoader(TensorDataset(torch.randn(64, 4), torch.randn(64, 1)), batch_size=8)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
params = dict(cfg["sched"]["params"])
if cfg["sched"]["name"] == "OneCycleLR":
    params["total_steps"] = cfg["epochs"] * len(loader)
sched = getattr(lr_scheduler, cfg["sched"]["name"])(opt, **params)
for epoch in range(cfg["epochs"]):
    for x, y in loader:
        opt.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()
        if cfg["sched"]["name"] == "OneCycleLR":
            sched.step()
    if cfg["sched"]["name"] != "OneCycleLR":
        sched.step()
"""
    pytest.importorskip("yaml")
    files = {"train.py": script,
             "train.yaml": "epochs: 10\nsched:\n  name: OneCycleLR\n  params:\n    max_lr: 0.1\n"}
    assert project_codes(check_project(tmp_path, monkeypatch, files, ["train.py"])) == []
