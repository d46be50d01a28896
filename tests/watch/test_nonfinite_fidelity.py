"""Detection and replay never change what training computes, and leave torch as they found it."""

from __future__ import annotations

import runpy
import textwrap

import pytest

import lrdoctor

torch = pytest.importorskip("torch")

# Dropout (RNG), BatchNorm (buffers mutated by forward), Adam, GradScaler; at step 5 an
# outlier batch makes the loss inf: detection trips, the step is replayed for localization,
# GradScaler skips it, and training goes on.
LOOP = """
import torch
torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(8, 32), torch.nn.BatchNorm1d(32), torch.nn.ReLU(), torch.nn.Dropout(0.3),
    torch.nn.Linear(32, 1),
)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
scaler = torch.amp.GradScaler("cpu", enabled={scaler})
for step in range(1, 13):
    x, y = torch.randn(16, 8), torch.randn(16, 1)
    if step == 5 and {outlier}:
        x[3] = 3e38
    optimizer.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
rng_after = torch.get_rng_state()
"""


def _train(tmp_path, watched: bool, nan_trace: bool = False, nan_record: bool = False, **fmt):
    path = tmp_path / "loop.py"
    path.write_text(textwrap.dedent(LOOP.format(**fmt)))
    if not watched:
        return runpy.run_path(str(path), run_name="__main__"), None
    w = lrdoctor.watch(echo=lambda m: None, nan_trace=nan_trace, nan_record=nan_record)
    with w:
        ns = runpy.run_path(str(path), run_name="__main__")
    assert w.engine._internal_errors == 0
    return ns, w


def _state(ns):
    model = ns["model"]
    return [t.detach().clone() for t in list(model.parameters()) + list(model.buffers())] + [ns["rng_after"]]


@pytest.mark.parametrize("scaler, outlier, nan_trace, nan_record", [
    (True, True, False, False),  # trip under GradScaler: recording armed from then on
    (True, True, False, True),  # trip + replay under GradScaler (calls recorded from the start)
    (True, True, True, False),  # every op checked
    (False, False, False, False),  # plain detection on a healthy run
])
def test_training_is_bit_identical_with_detection_and_replay(tmp_path, scaler, outlier, nan_trace,
                                                             nan_record):
    plain, _ = _train(tmp_path, False, scaler=scaler, outlier=outlier)
    seen, w = _train(tmp_path, True, nan_trace=nan_trace, nan_record=nan_record, scaler=scaler,
                     outlier=outlier)
    for a, b in zip(_state(plain), _state(seen)):  # the outlier leaves NaN in BatchNorm's stats
        torch.testing.assert_close(a, b, rtol=0, atol=0, equal_nan=True)
    assert plain["optimizer"].state_dict()["state"].keys() == seen["optimizer"].state_dict()["state"].keys()
    for k, st in plain["optimizer"].state_dict()["state"].items():
        for name, v in st.items():
            assert torch.equal(torch.as_tensor(v), torch.as_tensor(seen["optimizer"].state_dict()["state"][k][name]))
    if outlier:
        f = next(f for f in w.findings if f.code == "LRD104")
        assert f.evidence["step"] == 5
        if nan_trace or nan_record:
            assert f.evidence["module"] == "model.0"  # the first Linear overflows float32
            assert "float32's maximum" in f.evidence["reason"]
        else:  # a one-off on a step whose module calls were not recorded
            assert "module" not in f.evidence and f.evidence["module_recorded"] is False
    else:
        assert w.findings == []


def _surface():
    import torch.nn.utils.clip_grad as clip_mod
    import torch.optim.optimizer as optmod
    from torch.utils._python_dispatch import _get_current_dispatch_mode_stack

    return {
        "Module.__call__": torch.nn.Module.__dict__["__call__"],
        "Tensor.backward": torch.Tensor.__dict__["backward"],
        "autograd.backward": torch.autograd.backward,
        "utils.clip_grad_norm_": torch.nn.utils.clip_grad_norm_,
        "utils.clip_grad_value_": torch.nn.utils.clip_grad_value_,
        "clip_grad.clip_grad_norm_": clip_mod.clip_grad_norm_,
        "clip_grad.clip_grad_value_": clip_mod.clip_grad_value_,
        "GradScaler.scale": torch.amp.GradScaler.__dict__["scale"],
        "GradScaler.unscale_": torch.amp.GradScaler.__dict__["unscale_"],
        "pre_hooks": dict(optmod._global_optimizer_pre_hooks),
        "post_hooks": dict(optmod._global_optimizer_post_hooks),
        "modes": list(_get_current_dispatch_mode_stack()),
    }


@pytest.mark.parametrize("nan_trace", [False, True])
def test_everything_installed_is_removed(tmp_path, nan_trace):
    before = _surface()
    _train(tmp_path, True, nan_trace=nan_trace, scaler=True, outlier=True)
    assert _surface() == before


def test_hooks_are_removed_when_the_script_raises(tmp_path):
    before = _surface()
    path = tmp_path / "boom.py"
    path.write_text("import torch\nloss = torch.nn.Linear(2, 1)(torch.randn(3, 2)).sum()\n"
                    "loss.backward()\nraise ValueError('boom')\n")
    with pytest.raises(ValueError):
        with lrdoctor.watch(echo=lambda m: None, nan_trace=True):
            runpy.run_path(str(path), run_name="__main__")
    assert _surface() == before


DDP = """
import torch
import torch.distributed as dist

dist.init_process_group("gloo", init_method="file://{store}", rank=0, world_size=1)
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
model = torch.nn.parallel.DistributedDataParallel(net)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
for step in range(1, 7):
    x = torch.randn(4, 8)
    if step == 3:
        x[0] = 3e38  # overflows the first Linear
    loss = model(x).pow(2).mean()
    optimizer.zero_grad()
    scaler.scale(loss).backward()  # DDP's reducer must not notice the replay
    scaler.step(optimizer)
    scaler.update()
params = [p.detach().clone() for p in net.parameters()]
dist.destroy_process_group()
"""


def test_replay_under_ddp_runs_the_wrapped_module_and_leaves_ddp_alone(tmp_path):
    if not torch.distributed.is_available():
        pytest.skip("no torch.distributed")
    path = tmp_path / "ddp.py"
    plain = {}
    for watched in (False, True):
        store = tmp_path / f"store{int(watched)}"
        path.write_text(textwrap.dedent(DDP.format(store=store)))
        if watched:
            w = lrdoctor.watch(echo=lambda m: None, nan_record=True)  # the one-off is replayed
            with w:
                ns = runpy.run_path(str(path), run_name="__main__")
            assert w.engine._internal_errors == 0
        else:
            plain = runpy.run_path(str(path), run_name="__main__")
    for a, b in zip(plain["params"], ns["params"]):
        assert torch.equal(a, b)
    f = next(f for f in w.findings if f.code == "LRD104")
    assert f.evidence["step"] == 3
    assert f.evidence["module"] == "model.module.0"
