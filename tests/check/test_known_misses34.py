"""Settings read two or more levels deep from a config the program builds (devmiss20).

Programs written for these tests; no third-party code.

A config built as nested records (``cfg = {"train": {"epochs": 90}, "sched": {"step_size":
30}}``, ``SimpleNamespace(sched=SimpleNamespace(step_size=30))``, ``EasyDict({...})``,
``OmegaConf.create({...})``) states its values as a one-level config does, but only the
one-level reads (``cfg["step_size"]``) were resolved: a StepLR sized by
``cfg["sched"]["step_size"]`` stepped per batch went unreported, and a branch testing
``cfg["sched"]["name"]`` was left open, so the scheduler of the branch that never runs was
reported. Read through any number of nested records, the value is known exactly when the
one-level value would be: the record written once as literals and never changed (no store
into it or into the nested record, the nested record never replaced, never bound to another
name nor handed to the project's code).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, notebook, project_codes

# the config's spellings: how it is built, and how `sched.step_size` is read from it
STYLES = {
    "dict": ('cfg = {{"train": {{"epochs": 90}}, "sched": {{"name": {name}, "size": 30}}}}',
             'cfg["{section}"]["{key}"]'),
    "namespace": ("cfg = SimpleNamespace(train=SimpleNamespace(epochs=90),\n"
                  "                      sched=SimpleNamespace(name={name}, size=30))",
                  "cfg.{section}.{key}"),
    "easydict": ('cfg = EasyDict({{"train": {{"epochs": 90}}, "sched": {{"name": {name}, '
                 '"size": 30}}}})', "cfg.{section}.{key}"),
    "omegaconf": ('cfg = OmegaConf.create({{"train": {{"epochs": 90}},\n'
                  '                         "sched": {{"name": {name}, "size": 30}}}})',
                  "cfg.{section}.{key}"),
    "get": ('cfg = {{"train": {{"epochs": 90}}, "sched": {{"name": {name}, "size": 30}}}}',
            'cfg["{section}"].get("{key}")'),
}

PROGRAM = """
from types import SimpleNamespace

import torch
from easydict import EasyDict
from omegaconf import OmegaConf
from torch import nn

{config}
{after}

def main():
    model = nn.Linear(8, 2)
    loader = torch.utils.data.DataLoader(torch.randn(256, 8), batch_size=16)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
{build}
    for epoch in range({epochs}):
        for x in loader:
            opt.zero_grad()
            model(x).sum().backward()
            opt.step()
{step}


if __name__ == "__main__":
    main()
"""

STEPLR = "    sched = torch.optim.lr_scheduler.StepLR(opt, step_size={size})"
CHOICE = """    if {name} == "step":
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=30)
    else:
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1,
                                                    total_steps={epochs} * len(loader))"""
PER_BATCH = "            sched.step()"
PER_EPOCH = "        sched.step()"


def program(style: str, build: str, step: str, name: str = '"step"', after: str = "") -> str:
    config, read = STYLES[style]

    def setting(section: str, key: str) -> str:
        return read.format(section=section, key=key)

    fields = {"size": setting("sched", "size"), "epochs": setting("train", "epochs"),
              "name": setting("sched", "name")}
    return PROGRAM.format(config=config.format(name=name), after=after,
                          build=build.format(**fields), epochs=fields["epochs"], step=step)


# a horizon read from a nested record -------------------------------------------------------

@pytest.mark.parametrize("style", sorted(STYLES))
def test_steplr_sized_by_a_nested_setting_stepped_per_batch_is_reported(style: str) -> None:
    assert codes(program(style, STEPLR, PER_BATCH)) == ["LRD002"]


@pytest.mark.parametrize("style", sorted(STYLES))
def test_steplr_sized_by_a_nested_setting_stepped_per_epoch_is_silent(style: str) -> None:
    assert codes(program(style, STEPLR, PER_EPOCH)) == []


def test_nested_and_flat_settings_report_the_same_horizon() -> None:
    nested = program("dict", STEPLR, PER_BATCH)
    flat = nested.replace('{"train": {"epochs": 90}, "sched": {"name": "step", "size": 30}}',
                          '{"epochs": 90, "name": "step", "size": 30}') \
        .replace('cfg["sched"]["size"]', 'cfg["size"]').replace('cfg["train"]["epochs"]',
                                                                 'cfg["epochs"]')
    assert codes(flat) == codes(nested) == ["LRD002"]


LOCAL = """
import torch
from torch import nn


def train({params}):
{config}    model = nn.Linear(8, 2)
    loader = torch.utils.data.DataLoader(torch.randn(256, 8), batch_size=16)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=cfg["sched"]["size"])
    for epoch in range(cfg["train"]["epochs"]):
        for x in loader:
            opt.zero_grad()
            model(x).sum().backward()
            opt.step()
            sched.step()
"""


def test_nested_config_built_in_the_training_function_is_read() -> None:
    config = '    cfg = {"train": {"epochs": 90}, "sched": {"size": 30}}\n'
    assert codes(LOCAL.format(params="", config=config)) == ["LRD002"]


def test_nested_config_handed_in_is_not_guessed_from_another_record() -> None:
    # `cfg` is the caller's: a record of the same shape elsewhere in the file (`defaults`)
    # says nothing about it, and step_size=cfg["sched"]["size"] stays unknown
    source = 'defaults = {"train": {"epochs": 90}, "sched": {"size": 30}}\n' \
        + LOCAL.format(params="cfg", config="")
    assert codes(source) == []


# a branch decided by a nested record -------------------------------------------------------

@pytest.mark.parametrize("style", sorted(STYLES))
def test_branch_the_nested_config_rules_out_is_not_reported(style: str) -> None:
    # sched.name is "cosine": the StepLR of the `== "step"` branch is never built, and the
    # OneCycleLR that is built is rightly stepped per batch
    assert codes(program(style, CHOICE, PER_BATCH, name='"cosine"')) == []


@pytest.mark.parametrize("style", sorted(STYLES))
def test_branch_the_nested_config_picks_is_reported(style: str) -> None:
    # sched.name is "step": the StepLR is built and stepped per batch
    assert codes(program(style, CHOICE, PER_BATCH, name='"step"')) == ["LRD002"]


@pytest.mark.parametrize("after", [
    'cfg["sched"]["name"] = "step"',  # a store into the nested record
    'cfg["sched"] = {"name": "step", "size": 30}',  # the nested record replaced
    'cfg["sched"].update(name="step")',
    'sched_cfg = cfg["sched"]\nsched_cfg["name"] = "step"',  # bound to another name
])
def test_nested_record_changed_after_it_is_written_decides_nothing(after: str) -> None:
    # the value may be "step" when the branch runs: the StepLR stays reported, conditionally
    found = codes(program("dict", CHOICE, PER_BATCH, name='"cosine"', after=after))
    assert found == ["LRD002"]


# across modules and in a notebook ----------------------------------------------------------

CONFIG_MODULE = """
cfg = {"train": {"epochs": 90, "amp": True}, "sched": {"size": 30}}
"""

DRIVER = """
import torch
from torch import nn

from config import cfg


def main():
    model = nn.Linear(8, 2)
    loader = torch.utils.data.DataLoader(torch.randn(256, 8), batch_size=16)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=cfg["sched"]["size"])
    for epoch in range(cfg["train"]["epochs"]):
        for x in loader:
            opt.zero_grad()
            model(x).sum().backward()
            opt.step()
{step}


main()
"""


@pytest.mark.parametrize(("step", "reported"), [(PER_BATCH, True), (PER_EPOCH, False)])
def test_nested_setting_of_the_projects_config_module(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str, reported: bool) -> None:
    found = check_project(tmp_path, monkeypatch, {"config.py": CONFIG_MODULE,
                                                  "train.py": DRIVER.format(step=step)})
    assert ("LRD002" in project_codes(found)) is reported


NOTEBOOK_CELLS = [
    """
    import torch
    from torch import nn
    """,
    """
    cfg = {"train": {"epochs": 90}, "sched": {"name": %s, "size": 30}}
    """,
    """
    model = nn.Linear(8, 2)
    loader = torch.utils.data.DataLoader(torch.randn(256, 8), batch_size=16)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    if cfg["sched"]["name"] == "step":
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=cfg["sched"]["size"])
    else:
        sched = torch.optim.lr_scheduler.OneCycleLR(
            opt, max_lr=0.1, total_steps=cfg["train"]["epochs"] * len(loader))
    """,
    """
    for epoch in range(cfg["train"]["epochs"]):
        for x in loader:
            opt.zero_grad()
            model(x).sum().backward()
            opt.step()
            sched.step()
    """,
]


@pytest.mark.parametrize(("name", "reported"), [('"step"', True), ('"cosine"', False)])
def test_notebook_nested_config_cell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     name: str, reported: bool) -> None:
    cells = [c % name if "%s" in c else c for c in NOTEBOOK_CELLS]
    found = check_project(tmp_path, monkeypatch, {"train.ipynb": notebook(*cells)})
    assert ("LRD002" in project_codes(found)) is reported


# a record built from a dict the module binds (`EasyDict(defaults)`, `SimpleNamespace(**d)`) --

SPLAT = """
from types import SimpleNamespace

import torch
from easydict import EasyDict
from torch import nn

defaults = {{"train": {{"epochs": 90}}, "sched": {{"size": 30}}}}
{change}cfg = {build}


def main():
    model = nn.Linear(8, 2)
    loader = torch.utils.data.DataLoader(torch.randn(256, 8), batch_size=16)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size={size})
    for epoch in range({epochs}):
        for x in loader:
            opt.zero_grad()
            model(x).sum().backward()
            opt.step()
            sched.step()


main()
"""


@pytest.mark.parametrize(("build", "size", "epochs"), [
    ("EasyDict(defaults)", "cfg.sched.size", "cfg.train.epochs"),
    ("SimpleNamespace(**defaults)", 'cfg.sched["size"]', 'cfg.train["epochs"]'),
])
def test_record_built_from_a_module_dict_states_its_nested_values(
        build: str, size: str, epochs: str) -> None:
    source = SPLAT.format(change="", build=build, size=size, epochs=epochs)
    assert codes(source) == ["LRD002"]
    # the dict changed in place before the record is built: its value is not known
    changed = SPLAT.format(change='defaults["sched"]["size"] = 3000\n', build=build,
                           size=size, epochs=epochs)
    assert codes(changed) == []
