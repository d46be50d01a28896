"""Framework-based training code (issue 7, batch "fresh-2026-12fw" of bench/realcode): the
general shapes behind the batch's misses and false alarms, each in our own words, next to the
control that must still (or never) be reported."""

from __future__ import annotations

import textwrap
from pathlib import Path

from lrdoctor.catalog import CATALOG
from lrdoctor.check.runner import check_files
from tests.check.helpers import codes

CODES = frozenset(CATALOG)


def _project(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, str, int]]:
    (tmp_path / ".git").mkdir()
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    report = check_files([str(tmp_path / name) for name in files], CODES, jobs=1)
    return sorted((Path(d.path).name, d.code, d.line) for d in report.diagnostics)


# -- a scheduler built by a registry from settings the optimizer was put into ----------------
#
# mmcv-style frameworks keep every scheduler class in a registry and build one from a mapping
# of settings: `cfg["optimizer"] = optimizer; REGISTRY.build(cfg)` calls the class with the
# mapping's entries as keywords. The optimizer reaches the constructor through the mapping, and
# the result is bound to a scheduler's name: a scheduler of unknown class driving that
# optimizer, enough for the rules about order and AMP.

_REGISTRY = """
class Registry:
    def __init__(self, name):
        self.name = name
        self.classes = {}

    def register(self, cls):
        self.classes[cls.__name__] = cls
        return cls

    def build(self, config):
        settings = dict(config)
        return self.classes[settings.pop("type")](**settings)


LR_POLICIES = Registry("lr policies")
"""

_BUILDER = """
from registry import LR_POLICIES


class NoSchedule:
    def step(self):
        pass


def make_schedule(optimizer, settings):
    {build}
"""

_BUILD_INTO_SETTINGS = """settings["optimizer"] = optimizer
    schedule = LR_POLICIES.build(settings)
    return schedule"""

_LOOP = """
import torch
from builder import make_schedule


def fit(net, batches, settings, total_iters, half):
    opt = torch.optim.AdamW(net.parameters(), lr=3e-4)
    schedule = make_schedule(opt, settings)
    grad_scaler = torch.amp.GradScaler("cuda", enabled=half)
    for it, (x, y) in zip(range(total_iters), batches):
        opt.zero_grad()
        with torch.autocast("cuda", enabled=half):
            loss = net(x, y)
        grad_scaler.scale(loss).backward()
        grad_scaler.step(opt)
        {after}
        schedule.step()
"""


def test_registry_built_schedule_steps_after_a_skippable_scaler_step(tmp_path: Path) -> None:
    found = _project(tmp_path, {
        "registry.py": _REGISTRY,
        "builder.py": _BUILDER.format(build=_BUILD_INTO_SETTINGS),
        "fit.py": _LOOP.format(after="grad_scaler.update()"),
    })
    assert ("fit.py", "LRD005", 17) in found


def test_registry_built_schedule_or_a_no_op_stand_in_is_still_the_schedule(tmp_path: Path) -> None:
    # the trainer falls back to a do-nothing object when no policy is configured: where one
    # is, the registry's scheduler is what steps
    loop = _LOOP.format(after="grad_scaler.update()").replace(
        "from builder import make_schedule", "from builder import make_schedule, NoSchedule"
    ).replace(
        "    schedule = make_schedule(opt, settings)\n",
        "    if settings:\n        schedule = make_schedule(opt, settings)\n"
        "    else:\n        schedule = NoSchedule()\n",
    )
    found = _project(tmp_path, {
        "registry.py": _REGISTRY,
        "builder.py": _BUILDER.format(build=_BUILD_INTO_SETTINGS),
        "fit.py": loop,
    })
    assert ("fit.py", "LRD005", 20) in found


def test_registry_built_schedule_stepped_only_after_real_updates_is_not_reported(
    tmp_path: Path,
) -> None:
    # control: the step waits for the scale to hold (no skipped update behind it)
    guarded = """scale_before = grad_scaler.get_scale()
        grad_scaler.update()
        if grad_scaler.get_scale() < scale_before:
            continue"""
    found = _project(tmp_path, {
        "registry.py": _REGISTRY,
        "builder.py": _BUILDER.format(build=_BUILD_INTO_SETTINGS),
        "fit.py": _LOOP.format(after=guarded),
    })
    assert [f for f in found if f[1] == "LRD005"] == []


def test_something_else_built_from_settings_holding_the_optimizer_is_not_a_scheduler() -> None:
    # control: a hook built from a mapping that holds the optimizer is not a scheduler because
    # of it; only a result bound to a scheduler's name is taken for one
    src = """
    import torch
    from registry import HOOKS

    def fit(net, batches, settings):
        opt = torch.optim.AdamW(net.parameters(), lr=3e-4)
        settings["optimizer"] = opt
        hook = HOOKS.build(settings)
        grad_scaler = torch.amp.GradScaler("cuda")
        for x, y in batches:
            opt.zero_grad()
            with torch.autocast("cuda"):
                loss = net(x, y)
            grad_scaler.scale(loss).backward()
            grad_scaler.step(opt)
            grad_scaler.update()
            hook.step()
    """
    assert codes(src) == []


def test_mmcv_default_args_mapping_hands_over_the_optimizer() -> None:
    src = """
    import torch
    from mmlike import build_from_cfg, LR_POLICIES

    def fit(net, batches, cfg):
        opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
        schedule = build_from_cfg(cfg.lr_config, LR_POLICIES, default_args=dict(optimizer=opt))
        grad_scaler = torch.amp.GradScaler("cuda")
        for x, y in batches:
            opt.zero_grad()
            with torch.autocast("cuda"):
                loss = net(x, y)
            grad_scaler.scale(loss).backward()
            grad_scaler.step(opt)
            grad_scaler.update()
            schedule.step()
    """
    assert codes(src) == ["LRD005"]
