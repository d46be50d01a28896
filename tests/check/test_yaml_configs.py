"""Settings a training program reads from a YAML file of its project (yaml1).

``cfg = yaml.safe_load(open("configs/train.yaml"))``, ``OmegaConf.load(...)`` of a path the
program states (a literal, an argparse default) and ``@hydra.main(config_path=...,
config_name=...)`` with its ``defaults:`` list: the file's values are the defaults the program
runs with, as an argparse default is. Only a file the program names for certain is read, with
PyYAML's safe loader; without PyYAML, for a path chosen on the command line, a missing file or
one that does not parse, the values stay unknown (nothing is reported that needs them).

Programs and configs written for these tests; no third-party code."""

from __future__ import annotations

import sys

import pytest

from .helpers import check_project, project_codes

LOOP = """
    def train(model, loader):
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=cfg["optim"]["step_size"])
        for epoch in range(cfg["epochs"]):
            for x, y in loader:
                opt.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                opt.step()
                {batch_step}
            {epoch_step}
"""
PER_BATCH = {"batch_step": "sched.step()", "epoch_step": "pass"}
PER_EPOCH = {"batch_step": "pass", "epoch_step": "sched.step()"}

CONFIG = """
    epochs: 90
    optim:
      lr: 0.1
      step_size: 30
"""


def _program(head: str, steps: dict[str, str]) -> str:
    return head + LOOP.format(**steps)


SAFE_LOAD = """
    import torch
    import yaml

    cfg = yaml.safe_load(open("configs/train.yaml"))
"""


def _check(tmp_path, monkeypatch, files, checked=("train.py",)):
    return check_project(tmp_path, monkeypatch, files, list(checked))


def test_steplr_sized_in_yaml_stepped_per_batch_is_reported_with_its_file(
        tmp_path, monkeypatch):
    files = {"train.py": _program(SAFE_LOAD, PER_BATCH), "configs/train.yaml": CONFIG}
    assert project_codes(_check(tmp_path, monkeypatch, files)) == ["LRD002"]
    from lrdoctor.catalog import CATALOG
    from lrdoctor.check.runner import check_files
    report = check_files(["train.py"], frozenset(CATALOG), jobs=1)
    (message,) = [d.message for d in report.diagnostics]
    assert "horizon of 30 steps (the default in configs/train.yaml)" in message


def test_steplr_sized_in_yaml_stepped_per_epoch_is_silent(tmp_path, monkeypatch):
    files = {"train.py": _program(SAFE_LOAD, PER_EPOCH), "configs/train.yaml": CONFIG}
    assert _check(tmp_path, monkeypatch, files) == []


ARGPARSE = """
    import argparse

    import torch
    import yaml

    parser = argparse.ArgumentParser()
    parser.add_argument({option})
    args = parser.parse_args()
    with open(args.config) as handle:
        cfg = yaml.safe_load(handle)
"""


def test_config_path_from_an_argparse_default_is_read(tmp_path, monkeypatch):
    head = ARGPARSE.format(option='"--config", default="configs/train.yaml"')
    files = {"train.py": _program(head, PER_BATCH), "configs/train.yaml": CONFIG}
    assert project_codes(_check(tmp_path, monkeypatch, files)) == ["LRD002"]


def test_config_path_given_only_on_the_command_line_stays_unknown(tmp_path, monkeypatch):
    head = ARGPARSE.format(option='"config"')
    files = {"train.py": _program(head, PER_BATCH), "configs/train.yaml": CONFIG}
    assert _check(tmp_path, monkeypatch, files) == []


OMEGACONF = """
    import torch
    from omegaconf import OmegaConf

    cfg = OmegaConf.load("{path}")
"""


def test_omegaconf_load_relative_to_the_loading_file(tmp_path, monkeypatch):
    # the script lives in tools/ and names its config beside it
    files = {"tools/train.py": _program(OMEGACONF.format(path="train.yaml"), PER_BATCH),
             "tools/train.yaml": CONFIG}
    assert project_codes(_check(tmp_path, monkeypatch, files, ["tools/train.py"])) \
        == ["LRD002"]


def test_two_different_files_a_path_may_name_stay_unknown(tmp_path, monkeypatch):
    # "train.yaml" exists at the root and beside the script with other values: which one is
    # read depends on where the program is run from
    files = {"tools/train.py": _program(OMEGACONF.format(path="train.yaml"), PER_BATCH),
             "tools/train.yaml": CONFIG,
             "train.yaml": CONFIG.replace("step_size: 30", "step_size: 3000")}
    assert _check(tmp_path, monkeypatch, files, ["tools/train.py"]) == []


HYDRA = """
    import hydra
    import torch


    @hydra.main(config_path="conf", config_name="config", version_base=None)
    def main(cfg):
        model = torch.nn.Linear(4, 1)
        loader = torch.utils.data.DataLoader(range(64), batch_size=8)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=cfg.trainer.sched.milestones)
        for epoch in range(cfg.trainer.num_epochs):
            for x in loader:
                opt.zero_grad()
                model(x.float().unsqueeze(1).expand(-1, 4)).sum().backward()
                opt.step()
                sched.step()
"""
HYDRA_CONF = {
    "conf/config.yaml": """
        defaults:
          - trainer: basic
          - _self_
        seed: 0
    """,
    "conf/trainer/basic.yaml": """
        defaults:
          - sched: multistep
        num_epochs: 45
    """,
    "conf/trainer/sched/multistep.yaml": """
        milestones: [25, 40]
        gamma: 0.1
    """,
}


def test_hydra_config_with_its_defaults_list_is_composed(tmp_path, monkeypatch):
    files = {"main.py": HYDRA, **HYDRA_CONF}
    found = _check(tmp_path, monkeypatch, files, ["main.py"])
    assert project_codes(found) == ["LRD002"]
    from lrdoctor.catalog import CATALOG
    from lrdoctor.check.runner import check_files
    (diag,) = check_files(["main.py"], frozenset(CATALOG), jobs=1).diagnostics
    assert "conf/trainer/sched/multistep.yaml" in diag.message


def test_hydra_defaults_entry_that_cannot_be_found_is_skipped(tmp_path, monkeypatch):
    # the group's file is missing: its values are unknown, nothing is reported on them
    files = {"main.py": HYDRA, **{k: v for k, v in HYDRA_CONF.items()
                                  if not k.endswith("multistep.yaml")}}
    assert _check(tmp_path, monkeypatch, files, ["main.py"]) == []


def test_without_pyyaml_the_values_stay_unknown(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "yaml", None)  # `import yaml` raises ImportError
    files = {"train.py": _program(SAFE_LOAD, PER_BATCH), "configs/train.yaml": CONFIG}
    assert _check(tmp_path, monkeypatch, files) == []


@pytest.mark.parametrize("text", [
    "epochs: [90\noptim: {step_size: 30",  # does not parse
    "- 90\n- 30\n",  # a list, no mapping of settings
    "optim:\n  step_size: ${oc.env:STEP}\n",  # interpolated at run time
])
def test_yaml_that_states_no_value_gives_nothing(tmp_path, monkeypatch, text):
    files = {"train.py": _program(SAFE_LOAD, PER_BATCH), "configs/train.yaml": text}
    assert _check(tmp_path, monkeypatch, files) == []


def test_missing_yaml_file_gives_nothing(tmp_path, monkeypatch):
    files = {"train.py": _program(SAFE_LOAD, PER_BATCH)}
    assert _check(tmp_path, monkeypatch, files) == []


def test_yaml_and_python_stating_a_setting_differently_leave_it_unknown(
        tmp_path, monkeypatch):
    head = SAFE_LOAD + '\n    DEFAULTS = {"step_size": 3000}\n'
    files = {"train.py": _program(head, PER_BATCH), "configs/train.yaml": CONFIG}
    assert _check(tmp_path, monkeypatch, files) == []


def test_oversized_yaml_is_not_read(tmp_path, monkeypatch):
    from lrdoctor.check import yamlconf
    monkeypatch.setattr(yamlconf, "MAX_BYTES", 16)
    files = {"train.py": _program(SAFE_LOAD, PER_BATCH), "configs/train.yaml": CONFIG}
    assert _check(tmp_path, monkeypatch, files) == []


LIGHTNING = """
    import lightning as L
    import torch
    import yaml

    with open("configs/train.yaml") as handle:
        cfg = yaml.safe_load(handle)


    class Model(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = torch.nn.Linear(4, 1)

        def training_step(self, batch, index):
            return self.net(batch).sum()

        def configure_optimizers(self):
            opt = torch.optim.AdamW(self.parameters(), lr=1e-3)
            sched = torch.optim.lr_scheduler.OneCycleLR(
                opt, max_lr=cfg["sched"]["max_lr"],
                total_steps=self.trainer.estimated_stepping_batches)
            return {"optimizer": opt,
                    "lr_scheduler": {"scheduler": sched, "interval": cfg["sched"]["interval"]}}
"""


@pytest.mark.parametrize("interval, expected", [("epoch", ["LRD003"]), ("step", [])])
def test_lightning_interval_from_yaml(tmp_path, monkeypatch, interval, expected):
    files = {"train.py": LIGHTNING,
             "configs/train.yaml": f"sched:\n  max_lr: 0.01\n  interval: {interval}\n"}
    assert project_codes(_check(tmp_path, monkeypatch, files)) == expected


def test_lightning_interval_without_pyyaml_stays_unknown(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "yaml", None)
    files = {"train.py": LIGHTNING, "configs/train.yaml": "sched:\n  interval: epoch\n"}
    assert _check(tmp_path, monkeypatch, files) == []
