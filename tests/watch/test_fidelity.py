"""Watching never changes training, never leaks hooks, and never crashes the user's loop."""

from __future__ import annotations

import runpy
import textwrap

import pytest

import lrdoctor

torch = pytest.importorskip("torch")

LOOPS = {
    "plain": """
model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.5)
for epoch in range(4):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        scheduler.step()
""",
    "amp_with_skips": """
model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-2, total_steps=4 * len(loader))
scaler = torch.amp.GradScaler("cpu", init_scale=2.0**24)
for epoch in range(4):
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cpu", dtype=torch.float16):
            loss = torch.nn.functional.mse_loss(model(x), y * 5)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
        scheduler.step()
""",
    "fused_adam_with_scaler": """
model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, fused=True)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=4)
scaler = torch.amp.GradScaler("cpu", init_scale=2.0**24)
for epoch in range(4):
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cpu", dtype=torch.float16):
            loss = torch.nn.functional.mse_loss(model(x), y * 5)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
    scheduler.step()
""",
}

DATA = """
import torch
from torch.utils.data import DataLoader, TensorDataset
torch.manual_seed(1234)
loader = DataLoader(TensorDataset(torch.randn(128, 8), torch.randn(128, 1)), batch_size=16,
                    shuffle=True)
"""


def _train(tmp_path, name: str, watched: bool):
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(DATA + LOOPS[name]))
    if watched:
        with lrdoctor.watch(echo=lambda m: None) as w:
            ns = runpy.run_path(str(path), run_name="__main__")
        assert w.engine._internal_errors == 0
    else:
        ns = runpy.run_path(str(path), run_name="__main__")
    params = [p.detach().clone() for p in ns["model"].parameters()]
    state = ns["optimizer"].state_dict()
    return params, state, ns


@pytest.mark.parametrize("name", sorted(LOOPS))
def test_same_seed_gives_bit_identical_parameters_with_and_without_watching(tmp_path, name):
    plain, plain_state, ns_plain = _train(tmp_path, name, watched=False)
    seen, seen_state, ns_seen = _train(tmp_path, name, watched=True)
    for a, b in zip(plain, seen):
        assert torch.equal(a, b)
    assert plain_state["param_groups"] == seen_state["param_groups"]
    if "scaler" in ns_plain:
        assert ns_plain["scaler"].get_scale() == ns_seen["scaler"].get_scale()
    # the scheduler's checkpoint is untouched by lrdoctor's bookkeeping
    assert ns_plain["scheduler"].state_dict().keys() == ns_seen["scheduler"].state_dict().keys()


def test_amp_loop_really_skipped_steps(tmp_path):
    *_, ns = _train(tmp_path, "amp_with_skips", watched=False)
    assert ns["scaler"].get_scale() < 2.0**24  # the fidelity test above covers skipped steps


def _torch_surface():
    import torch.optim.optimizer as optmod
    from torch.utils.data import DataLoader
    from torch.utils.data.dataloader import _BaseDataLoaderIter

    sched = torch.optim.lr_scheduler
    surface = {
        "pre_hooks": dict(optmod._global_optimizer_pre_hooks),
        "post_hooks": dict(optmod._global_optimizer_post_hooks),
        "DataLoader.__iter__": DataLoader.__dict__["__iter__"],
        "_BaseDataLoaderIter.__next__": _BaseDataLoaderIter.__dict__["__next__"],
        "_BaseDataLoaderIter.__init__": _BaseDataLoaderIter.__dict__["__init__"],
        "_BaseDataLoaderIter.__next__.__code__": _BaseDataLoaderIter.__dict__["__next__"].__code__,
        "Optimizer.load_state_dict": torch.optim.Optimizer.__dict__["load_state_dict"],
        "Optimizer._optimizer_step_code": torch.optim.Optimizer.__dict__["_optimizer_step_code"],
        "LRScheduler.__init_subclass__": sched.LRScheduler.__dict__.get("__init_subclass__"),
        "GradScaler.step": torch.amp.GradScaler.__dict__["step"],
        "GradScaler.update": torch.amp.GradScaler.__dict__["update"],
    }
    for cls in [sched.LRScheduler, *sched.LRScheduler.__subclasses__()]:
        surface[f"{cls.__name__}.step"] = cls.__dict__.get("step")
    return surface


def test_everything_installed_is_removed_on_exit(tmp_path):
    before = _torch_surface()
    path = tmp_path / "t.py"
    path.write_text(DATA + """
class MySched(torch.optim.lr_scheduler.LambdaLR):
    def step(self, *a, **k):
        return super().step(*a, **k)
""" + LOOPS["plain"])
    with lrdoctor.watch(echo=lambda m: None):
        ns = runpy.run_path(str(path), run_name="__main__")
    after = _torch_surface()
    assert before == after
    # a scheduler class defined while watching is left unwrapped too
    assert not getattr(ns["MySched"].__dict__["step"], "_lrdoctor", False)


def test_internal_error_is_reported_once_and_training_continues(tmp_path, monkeypatch):
    from lrdoctor.runtime.engine import Engine

    def broken(self, *args, **kwargs):
        raise RuntimeError("boom inside lrdoctor")

    monkeypatch.setattr(Engine, "on_scheduler_step", broken)
    messages: list[str] = []
    path = tmp_path / "t.py"
    path.write_text(DATA + LOOPS["plain"])
    with lrdoctor.watch(echo=messages.append):
        ns = runpy.run_path(str(path), run_name="__main__")
    assert ns["scheduler"].last_epoch == 32  # the user's loop ran to the end
    errors = [m for m in messages if "internal error" in m]
    assert len(errors) == 1 and "boom inside lrdoctor" in errors[0]


def test_a_watch_inside_a_watch_reports_on_its_own_and_the_outer_includes_it():
    import multiprocessing.process

    before = _torch_surface()
    process_start = multiprocessing.process.BaseProcess.start
    model = torch.nn.Linear(2, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with lrdoctor.watch(echo=lambda m: None) as outer:
        with lrdoctor.watch(echo=lambda m: None) as inner:  # nothing raised
            scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1)
            for _ in range(3):
                optimizer.zero_grad()
                model(torch.ones(1, 2)).sum().backward()
                optimizer.step()
                scheduler.step()
        assert _torch_surface() == before  # the outer handed over for good: no hooks left
    assert inner.optimizer_steps == 3 and "No problems found." in inner.report()
    assert outer.optimizer_steps == 3
    assert "started its own lrdoctor.watch() at " in outer.report()
    assert outer.findings == inner.findings
    assert outer.to_dict()["nested"][0]["optimizers"][0]["steps"] == 3
    assert _torch_surface() == before
    assert multiprocessing.process.BaseProcess.start is process_start


def test_a_watch_used_twice_reports_on_its_latest_run():
    model = torch.nn.Linear(2, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    w = lrdoctor.watch(echo=lambda m: None)
    for steps in (2, 3):
        with w:
            for _ in range(steps):
                optimizer.zero_grad()
                model(torch.ones(1, 2)).sum().backward()
                optimizer.step()
        assert w.optimizer_steps == steps


def test_device_flags_are_kept_by_reference_and_read_in_batches():
    """On a device, reading a flag means a sync: hooks copy it (async) and the engine reads
    the pending ones together later. A meta tensor stands in for a device tensor: reading
    its value would raise."""
    from lrdoctor.runtime.engine import Engine
    from lrdoctor.runtime.hooks import _scalar

    flag = torch.zeros(1, device="meta")
    kept = _scalar(flag)
    assert isinstance(kept, torch.Tensor) and kept.device.type == "meta"
    assert _scalar(torch.tensor([2.0])) == 2.0

    engine = Engine(echo=lambda m: None)
    opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.1)
    for found_inf in (torch.tensor([1.0]), torch.tensor([0.0]), torch.tensor([0.0])):
        engine.on_attempt(opt, None, found_inf, True, None)
    info = engine.optimizers[id(opt)]
    assert info.taken == 0 and info.skipped == 0  # nothing read yet
    engine.finish()
    assert info.skipped == 1 and info.taken == 2


def test_objects_created_before_watching_are_seen():
    from torch.utils.data import DataLoader, TensorDataset

    torch.manual_seed(0)
    loader = DataLoader(TensorDataset(torch.randn(64, 4), torch.randn(64, 1)), batch_size=8)
    model = torch.nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=3)
    with lrdoctor.watch(echo=lambda m: None) as w:
        for _ in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                optimizer.step()
                scheduler.step()
    assert [f.code for f in w.findings] == ["LRD002"]
    (sched,) = w.engine.schedulers.values()
    assert sched.user_steps == 16 and sched.epoch_steps == [8, 8]


def test_public_watch_stays_a_function_after_the_runtime_is_imported():
    import inspect

    import lrdoctor.runtime.hooks  # noqa: F401 - importing submodules must not rebind it
    import lrdoctor.runtime.session

    assert inspect.isfunction(lrdoctor.watch)
    assert isinstance(lrdoctor.watch(), lrdoctor.runtime.session.Watch)
