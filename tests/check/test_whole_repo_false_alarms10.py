"""False alarms found by checking whole repositories (fphunt18), each with the buggy
neighbour that must still be reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.check.helpers import check_project, project_codes

# -- LRD007: a classmethod template hands its scaler to `cls.restore(...)` ---------------------

# A trainer written as classmethods (no instance): `fit` builds the GradScaler and hands it to
# the static `restore`, which loads it from the checkpoint ({restore} is its scaler part).
_CLASSMETHOD_TRAINER = """
import torch


class Runner:
    @staticmethod
    def restore(path, net, optimizers, scaler):
        saved = torch.load(path)
        net.load_state_dict(saved["net"])
        for opt, state in zip(optimizers, saved["optimizers"]):
            opt.load_state_dict(state)
{restore}

    @classmethod
    def fit(cls, net, optimizers, batches, use_amp, resume_from):
        if use_amp:
            scaler = torch.amp.GradScaler("cuda")
        else:
            scaler = None
        if resume_from:
            cls.restore(resume_from, net=net, optimizers=optimizers, scaler=scaler)
        for epoch in range(20):
            cls.one_epoch(net, optimizers, batches, scaler)
            torch.save({
                "net": net.state_dict(),
                "optimizers": [o.state_dict() for o in optimizers],
                "scaler": scaler.state_dict() if scaler is not None else None,
            }, "last.pt")

    @classmethod
    def one_epoch(cls, net, optimizers, batches, scaler):
        for x in batches:
            with torch.autocast("cuda", enabled=scaler is not None):
                loss = net(x).mean()
            if scaler is not None:
                scaler.scale(loss).backward()
                for opt in optimizers:
                    scaler.step(opt)
                scaler.update()
"""

_RESTORES_SCALER = """\
        if scaler is not None:
            if saved["scaler"] is None:
                print("no scaler state in the checkpoint")
            else:
                scaler.load_state_dict(saved["scaler"])"""

_SUBCLASS = """
from lib.runner import Runner


class AdversarialRunner(Runner):
    pass
"""


def test_classmethod_resume_restoring_the_scaler_is_quiet_beside_a_subclass(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the subclass (another module) inherits `fit` and `restore`; traced for it, `restore`
    # was an entry of its own in `fit`'s trace, its scaler a stand-in, so the real scaler
    # `fit` builds looked never restored
    found = check_project(tmp_path, monkeypatch, {
        "lib/__init__.py": "",
        "lib/runner.py": _CLASSMETHOD_TRAINER.replace("{restore}", _RESTORES_SCALER),
        "lib/adversarial.py": _SUBCLASS,
    })
    assert "LRD007" not in project_codes(found)


def test_classmethod_resume_restoring_the_scaler_is_quiet_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "runner.py": _CLASSMETHOD_TRAINER.replace("{restore}", _RESTORES_SCALER),
    })
    assert "LRD007" not in project_codes(found)


def test_classmethod_resume_forgetting_the_scaler_is_reported_beside_a_subclass(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "lib/__init__.py": "",
        "lib/runner.py": _CLASSMETHOD_TRAINER.replace("{restore}", ""),
        "lib/adversarial.py": _SUBCLASS,
    })
    assert ("lib/runner.py", 11, "LRD007") in found


def test_classmethod_resume_forgetting_the_scaler_is_reported_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `cls.restore(...)` is followed with the objects `fit` hands it: the optimizer restored,
    # the GradScaler `fit` builds (and saves) left at a fresh scale
    found = check_project(tmp_path, monkeypatch, {
        "runner.py": _CLASSMETHOD_TRAINER.replace("{restore}", ""),
    })
    assert ("runner.py", 11, "LRD007") in found


def test_cls_call_runs_the_subclass_override(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `cls.one_epoch(...)` in the inherited template runs the subclass's override: here the
    # override clips before unscaling (LRD108), which only the override's own trace with the
    # real scaler can tell
    found = check_project(tmp_path, monkeypatch, {
        "lib/__init__.py": "",
        "lib/runner.py": _CLASSMETHOD_TRAINER.replace("{restore}", _RESTORES_SCALER),
        "lib/adversarial.py": _SUBCLASS.replace("    pass\n", """\
    @classmethod
    def one_epoch(cls, net, optimizers, batches, scaler):
        import torch
        for x in batches:
            with torch.autocast("cuda", enabled=scaler is not None):
                loss = net(x).mean()
            scaler.scale(loss).backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            for opt in optimizers:
                scaler.step(opt)
            scaler.update()
"""),
    })
    assert "LRD007" not in project_codes(found)
    assert "LRD108" in project_codes(found)


def test_cls_names_no_instance(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # only a classmethod or staticmethod is followed through `cls`: `cls(...)` builds nothing
    # the trace would then take for the trainer's own objects
    found = check_project(tmp_path, monkeypatch, {
        "config.py": """
import torch


class Settings:
    def __init__(self, lr):
        self.lr = lr

    @classmethod
    def from_args(cls, args):
        return cls(args.lr)

    @classmethod
    def describe(cls, args):
        return cls.from_args(args).lr


def main(args, net, loader):
    optimizer = torch.optim.SGD(net.parameters(), lr=Settings.describe(args))
    for epoch in range(3):
        for x in loader:
            optimizer.zero_grad()
            net(x).mean().backward()
            optimizer.step()
""",
    })
    assert found == []
