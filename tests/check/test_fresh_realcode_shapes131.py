"""Shapes seen in the fresh-2026-12zzzc128 batch (rcnew128, bench/realcode/README.md): horizons
and double steps, and the speaker-verification trainers of the voxceleb_trainer lineage, which
pick their scheduler module by name at run time.

Programs written for these tests; no third-party code.

One miss was fixed. A trainer that loads its scheduler factory from a package of the project by
name (``importlib.import_module("lr_plans." + plan).__getattribute__("build")``, the name an
option's string default handed down through ``Engine(net, **vars(args))``), builds
``self.sched, self.unit = build(optim, ...)`` and steps the scheduler per batch under
``if self.unit == "iteration":`` after ``scaler.step(optim)`` was silent: the module the name
picks was unknown, so the scheduler was too. The module name is now read when every piece of
it is known (a literal joined with ``+`` or an f-string to names holding a known string, an
option's string default read through the argument the caller passed, or through
``**vars(args)``, which passes each option as a keyword), and ``__getattribute__("build")`` /
``getattr(module, "build")`` of a module of the project is that module's function. A name the
program does not fix (a required option) stays unknown, and a default that picks the per-epoch
factory stays silent.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, project_codes

PLANS = {
    "lr_plans/__init__.py": "",
    "lr_plans/cosine_iters.py": '''
        import torch


        def build(optimizer, total_iters=1000, **unused):
            sched = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=total_iters)
            return sched, "iteration"
    ''',
    "lr_plans/step_epochs.py": '''
        import torch


        def build(optimizer, decay_every=20, **unused):
            sched = torch.optim.lr_scheduler.StepLR(optimizer, step_size=decay_every, gamma=0.5)
            return sched, "epoch"
    ''',
}

ENGINE = '''
    import importlib
    import torch


    class Engine:
        def __init__(self, net, plan, use_amp, **rest):
            self.net = net
            self.optim = torch.optim.AdamW(net.parameters(), lr=1e-3)
            PICK
            self.sched, self.unit = maker(self.optim, **rest)
            self.scaler = torch.amp.GradScaler("cuda", enabled=use_amp)
            self.use_amp = use_amp

        def one_epoch(self, batches):
            for x, y in batches:
                self.optim.zero_grad()
                with torch.autocast("cuda", enabled=self.use_amp):
                    loss = torch.nn.functional.l1_loss(self.net(x), y)
                UPDATE
                if self.unit == "iteration":
                    self.sched.step()
            if self.unit == "epoch":
                self.sched.step()
'''

SCALED = '''self.scaler.scale(loss).backward()
                self.scaler.step(self.optim)
                self.scaler.update()'''

PLAIN = '''loss.backward()
                self.optim.step()'''

MAIN = '''
    import argparse
    import torch
    from torch.utils.data import DataLoader, TensorDataset
    from engine import Engine

    ap = argparse.ArgumentParser()
    ap.add_argument("--plan", type=str, PLAN_DEFAULT)
    ap.add_argument("--total_iters", type=int, default=4000)
    ap.add_argument("--decay_every", type=int, default=20)
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--use_amp", action="store_true")
    args = ap.parse_args()

    batches = DataLoader(TensorDataset(torch.randn(32, 3), torch.randn(32, 1)), batch_size=4)
    BUILD
    for epoch in range(args.epochs):
        engine.one_epoch(batches)
'''

CONCAT = 'maker = importlib.import_module("lr_plans." + plan).__getattribute__("build")'
SPLAT = "engine = Engine(torch.nn.Linear(3, 1), **vars(args))"


def project(pick: str = CONCAT, default: str = 'default="cosine_iters"', build: str = SPLAT,
            update: str = SCALED) -> dict[str, str]:
    return {
        **PLANS,
        "engine.py": ENGINE.replace("PICK", pick).replace("UPDATE", update),
        "main.py": MAIN.replace("PLAN_DEFAULT", default).replace("BUILD", build),
    }


def engine_codes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                 files: dict[str, str]) -> list[str]:
    found = check_project(tmp_path, monkeypatch, files)
    assert all(path == "engine.py" for path, _, _ in found), found
    return project_codes(found)


@pytest.mark.parametrize("pick", [
    CONCAT,
    'maker = getattr(importlib.import_module("lr_plans." + plan), "build")',
    'maker = importlib.import_module(f"lr_plans.{plan}").build',
    'maker = importlib.import_module("lr_plans." + plan).build',
])
def test_factory_module_picked_by_an_option_default_is_followed(tmp_path, monkeypatch, pick):
    assert engine_codes(tmp_path, monkeypatch, project(pick=pick)) == ["LRD005"]


def test_module_name_built_by_a_method_call_stays_unknown(tmp_path, monkeypatch):
    pick = 'maker = importlib.import_module(".".join(["lr_plans", plan])).build'
    assert engine_codes(tmp_path, monkeypatch, project(pick=pick)) == []


@pytest.mark.parametrize("build", [
    SPLAT,
    "engine = Engine(torch.nn.Linear(3, 1), args.plan, args.use_amp, total_iters=4000)",
    "engine = Engine(torch.nn.Linear(3, 1), plan=args.plan, use_amp=args.use_amp)",
])
def test_option_reaches_the_trainer_by_splat_position_or_keyword(tmp_path, monkeypatch, build):
    assert engine_codes(tmp_path, monkeypatch, project(build=build)) == ["LRD005"]


def test_default_picking_the_per_epoch_factory_is_silent(tmp_path, monkeypatch):
    files = project(default='default="step_epochs"')
    assert engine_codes(tmp_path, monkeypatch, files) == []


def test_required_option_leaves_the_module_unknown(tmp_path, monkeypatch):
    files = project(default="required=True")
    assert engine_codes(tmp_path, monkeypatch, files) == []


def test_per_iteration_factory_without_a_grad_scaler_is_silent(tmp_path, monkeypatch):
    assert engine_codes(tmp_path, monkeypatch, project(update=PLAIN)) == []


def test_literal_module_name_was_already_followed(tmp_path, monkeypatch):
    pick = 'maker = importlib.import_module("lr_plans.cosine_iters").build'
    assert engine_codes(tmp_path, monkeypatch, project(pick=pick)) == ["LRD005"]


def test_module_of_another_library_named_by_an_option_is_left_alone(tmp_path, monkeypatch):
    # the name picks no module of the project: nothing is read into it
    pick = ('maker = importlib.import_module("torch.optim.lr_scheduler").__getattribute__'
            '("StepLR")')
    files = project(pick=pick)
    files["engine.py"] = files["engine.py"].replace(
        "self.sched, self.unit = maker(self.optim, **rest)",
        'self.sched, self.unit = maker(self.optim, step_size=10), "epoch"')
    assert engine_codes(tmp_path, monkeypatch, files) == []
