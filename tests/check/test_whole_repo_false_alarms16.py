"""Shapes met while checking whole repositories (fphunt27, fphunt28): the correct variant stays
quiet and the buggy neighbour is still reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.check.helpers import check_project, codes, project_codes

# -- an opt-in switch that nothing in the project switches on ---------------------------------

# A reward-model trainer (the MOSS-RLHF shape): the schedule steps per update unless
# `schedule_on_valid` is on, in which case it would step once per evaluation with the
# validation score as its argument (deprecated: LRD006). No code of the project ever sets that
# attribute, so as shipped the evaluation's step never runs. {guard} is the evaluation's test,
# {base} the class's bases, {body} extra class-body lines.
_TRAINER = """
import torch


class Trainer{base}:
{body}
    def __init__(self, model, loader, valid{params}):
        self.model = model
        self.loader = loader
        self.valid = valid
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, lambda s: min(1.0, (s + 1) / 100))
{init}
    def evaluate(self):
        score = sum(float(self.model(b).mean()) for b in self.valid)
        if {guard}:
            self.scheduler.step(score)
        return score

    def fit(self, epochs):
        for epoch in range(epochs):
            for batch in self.loader:
                self.model(batch).mean().backward()
                self.optimizer.step()
                self.optimizer.zero_grad()
                if not {guard}:
                    self.scheduler.step()
            self.evaluate()
"""

_DRIVER = """
import torch
from trainer import Trainer

model = torch.nn.Linear(4, 1)
trainer = Trainer(model, [torch.randn(8, 4)], [torch.randn(8, 4)])
{extra}
trainer.fit(3)
"""

_OFF = 'getattr(self, "schedule_on_valid", False)'


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, guard: str = _OFF,
             base: str = "", body: str = "", init: str = "", params: str = "",
             extra: str = "", files: dict[str, str] | None = None) -> list[str]:
    trainer = _TRAINER.format(guard=guard, base=base, body=body or "    pass\n", init=init,
                              params=params)
    sources = {"trainer.py": trainer, "train.py": _DRIVER.format(extra=extra), **(files or {})}
    checked = sorted(name for name in sources if name.endswith(".py"))
    return project_codes(check_project(tmp_path, monkeypatch, sources, checked))


def test_switch_that_nothing_sets_is_quiet(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    assert "LRD006" not in _project(tmp_path, monkeypatch)


def test_switch_read_with_none_default_is_quiet(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    guard = 'getattr(self, "schedule_on_valid", None)'
    assert "LRD006" not in _project(tmp_path, monkeypatch, guard=guard)


def test_switch_behind_hasattr_is_quiet(tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    guard = '(hasattr(self, "schedule_on_valid") and self.schedule_on_valid)'
    assert "LRD006" not in _project(tmp_path, monkeypatch, guard=guard)


def test_switch_compared_with_none_is_quiet(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    guard = '(getattr(self, "valid_metric", None) is not None)'
    assert "LRD006" not in _project(tmp_path, monkeypatch, guard=guard)


def test_switch_set_in_another_module_is_reported(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    extra = "trainer.schedule_on_valid = True"
    assert "LRD006" in _project(tmp_path, monkeypatch, extra=extra)


def test_switch_set_from_the_constructor_is_reported(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    init = "        self.schedule_on_valid = on_valid\n"
    assert "LRD006" in _project(tmp_path, monkeypatch, init=init, params=", on_valid=False")


def test_switch_set_by_setattr_with_its_name_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    extra = 'setattr(trainer, "schedule_on_valid", True)'
    assert "LRD006" in _project(tmp_path, monkeypatch, extra=extra)


def test_switch_set_by_setattr_with_a_computed_name_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    extra = ("import json, sys\n"
             "for key, value in json.load(open(sys.argv[1])).items():\n"
             "    setattr(trainer, key, value)")
    assert "LRD006" in _project(tmp_path, monkeypatch, extra=extra)


def test_switch_set_by_a_computed_setattr_in_an_unrelated_module_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # conservative: any store by a computed name anywhere in the project may be the one
    helper = "def apply(obj, overrides):\n    for k, v in overrides.items():\n" \
             "        setattr(obj, k, v)\n"
    assert "LRD006" in _project(tmp_path, monkeypatch, files={"utils/overrides.py": helper})


def test_switch_set_as_class_attribute_of_a_subclass_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    subclass = ("from trainer import Trainer\n\n\n"
                "class ValidTrainer(Trainer):\n    schedule_on_valid = True\n")
    assert "LRD006" in _project(tmp_path, monkeypatch, files={"valid_trainer.py": subclass})


def test_switch_set_as_a_property_is_reported(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    body = "    @property\n    def schedule_on_valid(self):\n        return True\n"
    assert "LRD006" in _project(tmp_path, monkeypatch, body=body)


def test_switch_from_a_spread_config_dict_is_reported(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    init = "        self.__dict__.update(options)\n"
    assert "LRD006" in _project(tmp_path, monkeypatch, init=init, params=", **options")


def test_switch_from_vars_update_is_reported(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    extra = "import yaml\nvars(trainer).update(yaml.safe_load(open('cfg.yaml')))"
    assert "LRD006" in _project(tmp_path, monkeypatch, extra=extra)


def test_switch_named_by_a_keyword_is_reported(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # `Trainer(..., schedule_on_valid=True)` into a `**options` spread handled elsewhere
    init = "        for k, v in options.items():\n            setattr(self, k, v)\n"
    extra = "Trainer(model, [], [], schedule_on_valid=True).fit(1)"
    assert "LRD006" in _project(tmp_path, monkeypatch, init=init, params=", **options",
                                extra=extra)


def test_switch_named_in_a_config_file_is_reported(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    files = {"configs/rm.yaml": "schedule_on_valid: true\n"}
    assert "LRD006" in _project(tmp_path, monkeypatch, files=files)


def test_switch_named_as_a_command_line_flag_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {"run.sh": "python train.py --schedule-on-valid\n"}
    assert "LRD006" in _project(tmp_path, monkeypatch, files=files)


def test_switch_with_a_truthy_default_is_reported(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    guard = 'getattr(self, "schedule_on_valid", True)'
    assert "LRD006" in _project(tmp_path, monkeypatch, guard=guard)


def test_switch_on_a_library_subclass_is_reported(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # the library's base class may set the attribute itself
    assert "LRD006" in _project(tmp_path, monkeypatch, base="(torch.nn.Module)",
                                init="        super().__init__()\n")


def test_switch_behind_a_getattr_hook_is_reported(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    body = "    def __getattr__(self, name):\n        return True\n"
    assert "LRD006" in _project(tmp_path, monkeypatch, body=body)


def test_switch_on_another_object_is_reported(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    # only the instance's own attributes are decided: `model` may be a library object
    guard = 'getattr(self.model, "schedule_on_valid", False)'
    assert "LRD006" in _project(tmp_path, monkeypatch, guard=guard)


# -- milestones as a range whose stride is named "step" ----------------------------------------

# An audio fine-tuning script (the SSAST shape): MultiStepLR decays every `lr_step` epochs from
# epoch `decay_start` on, its milestones written as a range capped far beyond any run; it steps
# once per epoch. "step" in the stride's name is a range's word for its stride, not a count of
# batches. {milestones} is the milestones argument.
_RANGE_MILESTONES = """
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--decay_start", type=int, default=10)
parser.add_argument("--lr_step", type=int, default=5)
parser.add_argument("--warmup_iters", type=int, default=2000)
parser.add_argument("--max_iters", type=int, default=100000)
parser.add_argument("--n_epochs", type=int, default=30)
args = parser.parse_args()

model = torch.nn.Linear(4, 1)
loader = torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=8)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, {milestones}, gamma=0.5)
for epoch in range(args.n_epochs):
    for x in loader:
        optimizer.zero_grad()
        model(x).mean().backward()
        optimizer.step()
    scheduler.step()
"""


def test_range_milestones_with_a_stride_named_step_stepped_per_epoch_is_quiet() -> None:
    src = _RANGE_MILESTONES.format(
        milestones="list(range(args.decay_start, 1000, args.lr_step))")
    assert "LRD003" not in codes(src)


def test_range_milestones_between_iteration_counts_stepped_per_epoch_is_reported() -> None:
    src = _RANGE_MILESTONES.format(
        milestones="list(range(args.warmup_iters, args.max_iters, 5000))")
    assert "LRD003" in codes(src)


# -- a warm-up window tested together with a period, under ReduceLROnPlateau ------------------

# A warm-up written every 50 updates while `global_step <= 1000`, the bound tested in one `and`
# with the period (and a setting); ReduceLROnPlateau, stepped per epoch on the validation
# score, only scales the LR it finds, so the warm-up hands over to it. {test} is the write's test.
_PLATEAU_WARMUP = """
import torch

model = torch.nn.Linear(4, 1)
loader = torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=8)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="max", patience=1)
base_lr = 1e-4
warmup = True
global_step = 0
for epoch in range(30):
    for x in loader:
        if {test}:
            for group in optimizer.param_groups:
                group["lr"] = global_step / 1000 * base_lr
        optimizer.zero_grad()
        model(x).mean().backward()
        optimizer.step()
        global_step += 1
    score = float(model(torch.randn(8, 4)).mean())
    scheduler.step(score)
"""


def test_plateau_warm_up_window_joined_with_a_period_is_quiet() -> None:
    src = _PLATEAU_WARMUP.format(test="global_step <= 1000 and global_step % 50 == 0")
    assert "LRD008" not in codes(src)


def test_plateau_warm_up_window_joined_with_a_setting_is_quiet() -> None:
    src = _PLATEAU_WARMUP.format(
        test="global_step <= 1000 and global_step % 50 == 0 and warmup == True")
    assert "LRD008" not in codes(src)


def test_plateau_write_when_either_test_holds_is_reported() -> None:
    src = _PLATEAU_WARMUP.format(test="global_step <= 1000 or global_step % 50 == 0")
    assert "LRD008" in codes(src)


def test_plateau_write_past_a_bound_joined_with_a_period_is_reported() -> None:
    src = _PLATEAU_WARMUP.format(test="global_step > 1000 and global_step % 50 == 0")
    assert "LRD008" in codes(src)


# -- the same switch read from a parsed command line ------------------------------------------

# A script whose evaluation steps the schedule with the score only when
# `getattr(args, "schedule_on_valid", False)`; the parser never declares that option.
# {options} are extra lines after the parser is built, {parse} the parse call.
_ARGS_SWITCH = """
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=3)
{options}
args = {parse}

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 100))
for epoch in range(args.epochs):
    for x in [torch.randn(8, 4)]:
        model(x).mean().backward()
        optimizer.step()
        optimizer.zero_grad()
    score = float(model(torch.randn(8, 4)).mean())
    if getattr(args, "schedule_on_valid", False):
        scheduler.step(score)
"""


def _args_switch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, options: str = "",
                 parse: str = "parser.parse_args()") -> list[str]:
    source = _ARGS_SWITCH.format(options=options, parse=parse)
    return project_codes(check_project(tmp_path, monkeypatch, {"train.py": source}))


def test_option_the_parser_never_declares_is_quiet(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    assert "LRD006" not in _args_switch(tmp_path, monkeypatch)


def test_option_never_declared_parsed_known_is_quiet(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    parse = "parser.parse_known_args()[0]"
    assert "LRD006" not in _args_switch(tmp_path, monkeypatch, parse=parse)


def test_option_the_parser_declares_is_reported(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    options = 'parser.add_argument("--schedule-on-valid", action="store_true")'
    assert "LRD006" in _args_switch(tmp_path, monkeypatch, options=options)


def test_options_defaulted_from_a_config_spread_are_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    options = "import json\nparser.set_defaults(**json.load(open('defaults.json')))"
    assert "LRD006" in _args_switch(tmp_path, monkeypatch, options=options)


def test_options_parsed_into_a_given_namespace_are_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parse = "parser.parse_args(namespace=argparse.Namespace(schedule_on=True))"
    assert "LRD006" in _args_switch(tmp_path, monkeypatch, parse=parse)


def test_switch_on_a_config_that_is_not_a_parsed_command_line_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parse = "load_config()\nparser.parse_args()"
    source = "def load_config():\n    return object()\n" + _ARGS_SWITCH.format(
        options="", parse=parse)
    assert "LRD006" in project_codes(check_project(tmp_path, monkeypatch, {"train.py": source}))
