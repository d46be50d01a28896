"""Objects built from a config (yaml2): Hydra's ``instantiate`` / ``call`` of a ``_target_``
mapping, and the project's registries looked up by a key that is certain.

``hydra.utils.instantiate(cfg.scheduler, optimizer=opt)`` where the YAML node says ``_target_:
torch.optim.lr_scheduler.StepLR`` with ``step_size: 30`` builds that StepLR, exactly as the
written call would; ``_partial_: true`` gives a partial the program calls later with the
optimizer. A registry (``{"step": StepLR, ...}`` in another module) looked up with a literal,
an argparse default or a YAML value gives that class; an uncertain key gives a scheduler of
unknown class (order and AMP rules only). A value known only at run time (a Hydra
interpolation, a key the program overwrites, ``**overrides`` at the call) stays unknown.

Programs and configs written for these tests; no third-party code."""

from __future__ import annotations

import pytest

from .helpers import check_project, project_codes

HYDRA_MAIN = """
    import hydra
    import torch
    from hydra.utils import instantiate


    @hydra.main(config_path="conf", config_name="config", version_base=None)
    def main(cfg):
        model = torch.nn.Linear(4, 1)
        loader = torch.utils.data.DataLoader(range(64), batch_size=8)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        sched = {build}
        for epoch in range(cfg.epochs):
            for x in loader:
                opt.zero_grad()
                model(x.float().unsqueeze(1).expand(-1, 4)).sum().backward()
                opt.step()
                {batch_step}
            {epoch_step}


    if __name__ == "__main__":
        main()
"""
PER_BATCH = {"batch_step": "sched.step()", "epoch_step": "pass"}
PER_EPOCH = {"batch_step": "pass", "epoch_step": "sched.step()"}

STEP_CONF = {
    "conf/config.yaml": """
        defaults:
          - scheduler: step
          - _self_
        epochs: 90
    """,
    "conf/scheduler/step.yaml": """
        _target_: torch.optim.lr_scheduler.StepLR
        step_size: 30
        gamma: 0.1
    """,
}
ONECYCLE_CONF = {
    "conf/config.yaml": """
        defaults:
          - model: net
          - _self_
        epochs: 10
    """,
    "conf/model/net.yaml": """
        scheduler:
          _target_: torch.optim.lr_scheduler.OneCycleLR
          _partial_: true
          max_lr: 0.1
          total_steps: 8000
    """,
}


def _check(tmp_path, monkeypatch, files, checked=("main.py",)):
    return check_project(tmp_path, monkeypatch, files, list(checked))


def _hydra(build: str, steps: dict[str, str]) -> str:
    return HYDRA_MAIN.format(build=build, **steps)


def test_yaml_configured_steplr_stepped_per_batch_is_reported(tmp_path, monkeypatch):
    files = {"main.py": _hydra("instantiate(cfg.scheduler, optimizer=opt)", PER_BATCH),
             **STEP_CONF}
    assert project_codes(_check(tmp_path, monkeypatch, files)) == ["LRD002"]
    from lrdoctor.catalog import CATALOG
    from lrdoctor.check.runner import check_files
    (diag,) = check_files(["main.py"], frozenset(CATALOG), jobs=1).diagnostics
    assert "StepLR(step_size=30)" in diag.message
    assert "the default in conf/scheduler/step.yaml" in diag.message


def test_yaml_configured_steplr_stepped_per_epoch_is_silent(tmp_path, monkeypatch):
    files = {"main.py": _hydra("instantiate(cfg.scheduler, optimizer=opt)", PER_EPOCH),
             **STEP_CONF}
    assert _check(tmp_path, monkeypatch, files) == []


def test_hydra_call_of_the_config_is_the_same_build(tmp_path, monkeypatch):
    files = {"main.py": _hydra("hydra.utils.call(cfg.scheduler, opt)", PER_BATCH),
             **STEP_CONF}
    assert project_codes(_check(tmp_path, monkeypatch, files)) == ["LRD002"]


def test_partial_onecycle_called_with_the_optimizer_per_epoch_is_reported(
        tmp_path, monkeypatch):
    files = {"main.py": _hydra("instantiate(cfg.model.scheduler)(optimizer=opt)", PER_EPOCH),
             **ONECYCLE_CONF}
    assert project_codes(_check(tmp_path, monkeypatch, files)) == ["LRD003"]


def test_partial_onecycle_called_with_the_optimizer_per_batch_is_silent(tmp_path, monkeypatch):
    files = {"main.py": _hydra("instantiate(cfg.model.scheduler)(optimizer=opt)", PER_BATCH),
             **ONECYCLE_CONF}
    assert _check(tmp_path, monkeypatch, files) == []


def test_group_path_option_is_placed_under_its_path(tmp_path, monkeypatch):
    # `- trainer/scheduler: multistep` in the defaults list lands at `cfg.trainer.scheduler`
    conf = {
        "conf/config.yaml": """
            defaults:
              - trainer: basic
              - trainer/scheduler: multistep
              - _self_
            epochs: 45
        """,
        "conf/trainer/basic.yaml": """
            optimizer:
              lr: 0.001
        """,
        "conf/trainer/scheduler/multistep.yaml": """
            _target_: torch.optim.lr_scheduler.MultiStepLR
            milestones: [25]
        """,
    }
    build = "instantiate(cfg.trainer.scheduler, opt)"
    found = _check(tmp_path, monkeypatch, {"main.py": _hydra(build, PER_BATCH), **conf})
    assert project_codes(found) == ["LRD002"]
    found = _check(tmp_path / "twin", monkeypatch, {"main.py": _hydra(build, PER_EPOCH), **conf})
    assert found == []


@pytest.mark.parametrize("t_max, expected", [
    ("${epochs}", ["LRD002"]),  # OmegaConf reads it in the composed config: 90
    ("${oc.env:T_MAX}", []),  # a resolver, filled in at run time: nothing is guessed
    ("${trainer.max_epochs}", []),  # no such value in the config
])
def test_interpolated_horizon(tmp_path, monkeypatch, t_max, expected):
    conf = {**STEP_CONF, "conf/scheduler/step.yaml": f"""
        _target_: torch.optim.lr_scheduler.CosineAnnealingLR
        T_max: {t_max}
    """}
    files = {"main.py": _hydra("instantiate(cfg.scheduler, optimizer=opt)", PER_BATCH), **conf}
    assert project_codes(_check(tmp_path, monkeypatch, files)) == expected


def test_interpolated_value_the_program_overwrites_stays_unknown(tmp_path, monkeypatch):
    conf = {**STEP_CONF, "conf/scheduler/step.yaml": """
        _target_: torch.optim.lr_scheduler.CosineAnnealingLR
        T_max: ${epochs}
    """}
    program = _hydra("None", PER_BATCH).replace(
        "        sched = None\n",
        "        cfg.epochs = cfg.epochs * len(loader)\n"
        "        sched = instantiate(cfg.scheduler, optimizer=opt)\n")
    assert _check(tmp_path, monkeypatch, {"main.py": program, **conf}) == []


def test_interpolated_target_stays_unknown(tmp_path, monkeypatch):
    conf = {**STEP_CONF, "conf/scheduler/step.yaml": """
        _target_: ${scheduler_class}
        step_size: 30
    """}
    files = {"main.py": _hydra("instantiate(cfg.scheduler, optimizer=opt)", PER_BATCH), **conf}
    assert _check(tmp_path, monkeypatch, files) == []


def test_a_key_the_program_overwrites_stays_unknown(tmp_path, monkeypatch):
    # the YAML's 30 is replaced by a count of batches before the scheduler is built
    program = _hydra("None", PER_BATCH).replace(
        "        sched = None\n",
        "        cfg.scheduler.step_size = 30 * len(loader)\n"
        "        sched = instantiate(cfg.scheduler, optimizer=opt)\n")
    files = {"main.py": program, **STEP_CONF}
    assert _check(tmp_path, monkeypatch, files) == []


@pytest.mark.parametrize("build", [
    "instantiate(cfg.scheduler, optimizer=opt, step_size=30 * len(loader))",
    "instantiate(cfg.scheduler, optimizer=opt, **cfg.get('overrides', {}))",
])
def test_call_site_arguments_win_or_leave_it_unknown(tmp_path, monkeypatch, build):
    files = {"main.py": _hydra(build, PER_BATCH), **STEP_CONF}
    assert _check(tmp_path, monkeypatch, files) == []


PY_DICT = """
    import torch
    from hydra.utils import instantiate


    def train(model, loader, epochs=90):
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        sched = instantiate({{"_target_": "torch.optim.lr_scheduler.StepLR", "step_size": {size}}},
                            optimizer=opt)
        for epoch in range(epochs):
            for x, y in loader:
                opt.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                opt.step()
                sched.step()
"""


def test_python_dict_config_is_built_as_written(tmp_path, monkeypatch):
    files = {"main.py": PY_DICT.format(size="7")}
    assert project_codes(_check(tmp_path, monkeypatch, files)) == ["LRD002"]


def test_python_dict_config_sized_in_batches_is_silent(tmp_path, monkeypatch):
    files = {"main.py": PY_DICT.format(size="7 * len(loader)")}
    assert _check(tmp_path, monkeypatch, files) == []


SAFE_LOAD = """
    import torch
    import yaml
    from hydra.utils import instantiate

    cfg = yaml.safe_load(open("configs/train.yaml"))


    def train(model, loader):
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        sched = instantiate(cfg["sched"], optimizer=opt)
        for epoch in range(cfg["epochs"]):
            for x, y in loader:
                opt.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                opt.step()
                sched.step()
"""


@pytest.mark.parametrize("sched, expected", [
    ("_target_: torch.optim.lr_scheduler.MultiStepLR\n  milestones: [30, 60]", ["LRD002"]),
    ("_target_: torch.optim.lr_scheduler.MultiStepLR\n  milestones: [30000, 60000]", []),
])
def test_safe_loaded_config_built_by_instantiate(tmp_path, monkeypatch, sched, expected):
    files = {"main.py": SAFE_LOAD,
             "configs/train.yaml": f"epochs: 90\nsched:\n  {sched}\n"}
    assert project_codes(_check(tmp_path, monkeypatch, files)) == expected


# -- registries ------------------------------------------------------------------------------

REGISTRY_MODULE = """
    from torch.optim import lr_scheduler
    from torch.optim.lr_scheduler import CosineAnnealingLR, StepLR

    SCHEDULERS = {"step": StepLR, "cosine": CosineAnnealingLR, "plateau": lr_scheduler.ReduceLROnPlateau}
"""
REGISTRY_MAIN = """
    import argparse

    import torch

    from pkg.schedulers import SCHEDULERS


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--sched", {sched_option})
        parser.add_argument("--epochs", type=int, default=90)
        args = parser.parse_args()
        model = torch.nn.Linear(4, 1)
        loader = torch.utils.data.DataLoader(range(64), batch_size=8)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        scheduler = {lookup}(opt, step_size=30)
        for epoch in range(args.epochs):
            for x in loader:
                opt.zero_grad()
                model(x.float().unsqueeze(1).expand(-1, 4)).sum().backward()
                opt.step()
                scheduler.step()


    if __name__ == "__main__":
        main()
"""


def _registry(lookup: str, sched_option: str = 'default="step"') -> dict[str, str]:
    return {"main.py": REGISTRY_MAIN.format(lookup=lookup, sched_option=sched_option),
            "pkg/__init__.py": "", "pkg/schedulers.py": REGISTRY_MODULE}


@pytest.mark.parametrize("lookup", [
    'SCHEDULERS["step"]', "SCHEDULERS[args.sched]", "SCHEDULERS.get(args.sched)",
])
def test_registry_in_another_module_with_a_certain_key_gives_its_class(
        tmp_path, monkeypatch, lookup):
    found = _check(tmp_path, monkeypatch, _registry(lookup))
    assert project_codes(found) == ["LRD002"]


def test_registry_entry_that_counts_batches_is_silent(tmp_path, monkeypatch):
    files = _registry("SCHEDULERS[args.sched]")
    files["main.py"] = files["main.py"].replace("step_size=30", "step_size=30 * len(loader)")
    assert _check(tmp_path, monkeypatch, files) == []


@pytest.mark.parametrize("sched_option, then", [
    ("required=True", ""),
    ('default="step"', "args.sched = input()"),
    ('default="step"', "vars(args).update(overrides)"),
])
def test_registry_key_not_certain_is_no_known_class(tmp_path, monkeypatch, sched_option, then):
    # the key is chosen on the command line, or the option replaced after parsing: a
    # scheduler of unknown class, whose horizon rules say nothing
    files = _registry("SCHEDULERS[args.sched]", sched_option)
    files["main.py"] = files["main.py"].replace(
        "args = parser.parse_args()\n", f"args = parser.parse_args()\n        {then}\n")
    assert _check(tmp_path, monkeypatch, files) == []


def test_registry_key_not_certain_still_feeds_the_order_rule(tmp_path, monkeypatch):
    # scheduler stepped before the optimizer in the first batch: LRD001 needs no class
    files = _registry("SCHEDULERS[args.sched]", "required=True")
    files["main.py"] = files["main.py"].replace(
        "                opt.zero_grad()\n",
        "                scheduler.step()\n                opt.zero_grad()\n",
    ).replace("                opt.step()\n                scheduler.step()\n",
              "                opt.step()\n")
    assert project_codes(_check(tmp_path, monkeypatch, files)) == ["LRD001"]


def test_registry_key_from_the_yaml_config(tmp_path, monkeypatch):
    files = _registry("SCHEDULERS[cfg['sched']['name']]")
    files["main.py"] = files["main.py"].replace(
        "import argparse\n", "import argparse\n\n    import yaml\n"
    ).replace("    def main():\n", "    cfg = yaml.safe_load(open('train.yaml'))\n\n\n    def main():\n")
    files["train.yaml"] = "sched:\n  name: step\n"
    assert project_codes(_check(tmp_path, monkeypatch, files)) == ["LRD002"]


# -- registry objects (fvcore / detectron2 / mmengine style) -------------------------------------

REGISTRY_CLASS = """
    class Registry:
        def __init__(self, name):
            self._name = name
            self._obj_map = {}

        def register(self, obj=None, name=None):
            if obj is None:
                def deco(o):
                    self._obj_map[name or o.__name__] = o
                    return o
                return deco
            self._obj_map[name or obj.__name__] = obj

        def get(self, name):
            return self._obj_map[name]
"""
FILLED = """
    import torch
    from torch.optim.lr_scheduler import MultiStepLR, StepLR

    from .registry import Registry

    SCHEDULERS = Registry("scheduler")
    SCHEDULERS.register(StepLR)
    SCHEDULERS.register(MultiStepLR, name="multistep")


    @SCHEDULERS.register()
    def warm_step(optimizer, step_size):
        return StepLR(optimizer, step_size=step_size)


    def build_scheduler(optimizer):
        return SCHEDULERS.get("multistep")(optimizer, milestones=[30, 60])
"""
OBJECT_MAIN = """
    import argparse

    import torch

    from pkg.schedulers import SCHEDULERS, build_scheduler


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--sched", default="StepLR")
        args = parser.parse_args()
        model = torch.nn.Linear(4, 1)
        loader = torch.utils.data.DataLoader(range(64), batch_size=8)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        scheduler = {build}
        for epoch in range(90):
            for x in loader:
                opt.zero_grad()
                model(x.float().unsqueeze(1).expand(-1, 4)).sum().backward()
                opt.step()
                scheduler.step()


    if __name__ == "__main__":
        main()
"""


def _object_registry(build: str, filled: str = FILLED) -> dict[str, str]:
    return {"main.py": OBJECT_MAIN.format(build=build), "pkg/__init__.py": "",
            "pkg/registry.py": REGISTRY_CLASS, "pkg/schedulers.py": filled}


@pytest.mark.parametrize("build", [
    "SCHEDULERS.get(args.sched)(opt, step_size=30)",
    'SCHEDULERS.get("warm_step")(opt, step_size=30)',
    "build_scheduler(opt)",
])
def test_registry_object_filled_in_its_module_gives_the_class(tmp_path, monkeypatch, build):
    found = _check(tmp_path, monkeypatch, _object_registry(build))
    assert project_codes(found) == ["LRD002"]


@pytest.mark.parametrize("build", [
    "SCHEDULERS.get(args.sched)(opt, step_size=30 * len(loader))",
    'SCHEDULERS.get("cosine")(opt, step_size=30)',  # filed nowhere here: not known
])
def test_registry_object_silent_twins(tmp_path, monkeypatch, build):
    assert _check(tmp_path, monkeypatch, _object_registry(build)) == []


@pytest.mark.parametrize("filling", [
    # filled in a loop: what is filed under which key is not known statically
    "for _cls in (StepLR, MultiStepLR):\n    SCHEDULERS.register(_cls)\n",
    # one key filed twice (the later one forced in): not known which holds
    "SCHEDULERS.register(MultiStepLR, name='StepLR')\n",
])
def test_registry_object_filled_in_ways_not_understood_is_unknown(
        tmp_path, monkeypatch, filling):
    filled = FILLED + "\n" + "\n".join("    " + line for line in filling.splitlines()) + "\n"
    files = _object_registry("SCHEDULERS.get(args.sched)(opt, step_size=30)", filled)
    assert _check(tmp_path, monkeypatch, files) == []


# -- a project class named by the config, with the objects it is given built first -----------

TRAINER = """
    import torch


    class Trainer:
        def __init__(self, scheduler, epochs, optimizer):
            self.make_scheduler = scheduler
            self.make_optimizer = optimizer
            self.epochs = epochs

        def fit(self, model, loader):
            opt = self.make_optimizer(params=model.parameters())
            sched = self.make_scheduler(optimizer=opt)
            for epoch in range(self.epochs):
                for x in loader:
                    opt.zero_grad()
                    model(x.float().unsqueeze(1)).sum().backward()
                    opt.step()
                    {batch_step}
                {epoch_step}
"""
DRIVER = """
    import hydra
    import torch
    from hydra.utils import instantiate


    @hydra.main(config_path="conf", config_name="config", version_base=None)
    def main(cfg):
        model = torch.nn.Linear(1, 1)
        loader = torch.utils.data.DataLoader(range(64), batch_size=8)
        trainer = instantiate(cfg.trainer)
        trainer.fit(model, loader)


    if __name__ == "__main__":
        main()
"""
TRAINER_CONF = """
    trainer:
      _target_: mypkg.trainer.Trainer
      epochs: 90
      optimizer:
        _target_: torch.optim.SGD
        _partial_: true
        lr: 0.1
      scheduler:
        _target_: torch.optim.lr_scheduler.StepLR
        _partial_: true
        step_size: 30
"""


@pytest.mark.parametrize("steps, expected", [(PER_BATCH, ["LRD002"]), (PER_EPOCH, [])])
def test_driver_builds_the_trainer_its_config_names(tmp_path, monkeypatch, steps, expected):
    # the driver has none of the words of a training loop and imports no project module:
    # the loop is in the class the config's `_target_` names
    files = {"main.py": DRIVER, "mypkg/__init__.py": "",
             "mypkg/trainer.py": TRAINER.format(**steps), "conf/config.yaml": TRAINER_CONF}
    found = _check(tmp_path, monkeypatch, files)
    assert project_codes(found) == expected
    assert all(path == "mypkg/trainer.py" for path, _, _ in found)
