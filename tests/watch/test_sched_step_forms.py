"""The scheduler's step() wrapper has two forms (hooks._wrap_scheduler_step, perf57): for a class
whose own step() takes torch's parameters, ``step(self, epoch=None)``, the wrapper takes the
same ones (a step() with no argument then makes no tuple and dict for a star call); for any
other class it takes ``*args, **kwargs``. Both forms run the same lane path (the same text, read
here from the source) and hand every other step to the same general path, one frame deeper than
before. Each script below runs as ``lrdoctor run`` does and with nothing routine, same seed, and
every record, finding and the trained parameters (bit for bit, also against a run with no
lrdoctor) must be the same: torch's classes of both forms, subclasses of both forms, an epoch
given by position and by name, and the lane taking the steps where it did."""

from __future__ import annotations

import ast
import inspect
import runpy
import textwrap
import warnings

import pytest

from lrdoctor.runtime import hooks
from lrdoctor.runtime.engine import Engine
from tests.watch.test_lane import _snapshot

torch = pytest.importorskip("torch")

LOOP = """
import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
data = TensorDataset(torch.randn(256, 8), torch.randn(256, 1))
loader = DataLoader(data, batch_size=16, shuffle=True)  # 16 batches per epoch
model = torch.nn.Linear(8, 1)
head = torch.nn.Linear(8, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
SETUP
step = 0
for epoch in range(9):
    for x, y in loader:
        step += 1
        BATCH
"""

ONE = ("optimizer.zero_grad(); torch.nn.functional.mse_loss(model(x), y).backward(); optimizer.step()\n"
       "        ")
TWO = ("optimizer.zero_grad(); opt_b.zero_grad()\n"
       "        (torch.nn.functional.mse_loss(model(x), y) + torch.nn.functional.mse_loss(head(x), y)).backward()\n"
       "        optimizer.step(); opt_b.step()\n        ")
COSINE = "scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=400)"
SEQUENTIAL = ("scheduler = torch.optim.lr_scheduler.SequentialLR(optimizer, [\n"
              "    torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1, total_iters=20),\n"
              "    torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=400)], milestones=[20])")
STAR = ("class Star(torch.optim.lr_scheduler.CosineAnnealingLR):\n"
        "    def step(self, *args, **kwargs):\n"
        "        return super().step(*args, **kwargs)\n"
        "scheduler = Star(optimizer, T_max=400)")
PLAIN = ("class Plain(torch.optim.lr_scheduler.CosineAnnealingLR):\n"
         "    def step(self):\n"
         "        return super().step()\n"
         "scheduler = Plain(optimizer, T_max=400)")
EPOCH = ("class Epoch(torch.optim.lr_scheduler.CosineAnnealingLR):\n"
         "    def step(self, epoch=None):\n"
         "        return super().step(epoch)\n"
         "scheduler = Epoch(optimizer, T_max=400)")
OPT_B = "opt_b = torch.optim.Adam(head.parameters(), lr=1e-3)\n"  # (only where two optimizers step)
SCHED_B = "\nsched_b = torch.optim.lr_scheduler.CosineAnnealingLR(opt_b, T_max=400)"

# name -> (setup, batch)
SCRIPTS: dict[str, tuple[str, str]] = {
    "CosineAnnealingLR (torch's parameters)": (COSINE, ONE + "scheduler.step()"),
    "SequentialLR (step(self))": (SEQUENTIAL, ONE + "scheduler.step()"),
    "a subclass's step(*args, **kwargs)": (STAR, ONE + "scheduler.step()"),
    "a subclass's step(self)": (PLAIN, ONE + "scheduler.step()"),
    "a subclass's step(epoch=None) calling super()": (EPOCH, ONE + "scheduler.step()"),
    "an epoch given by position at step 100": (
        COSINE, ONE + "scheduler.step(step) if step == 100 else scheduler.step()"),
    "an epoch given by name at step 100": (
        COSINE, ONE + "scheduler.step(epoch=step) if step == 100 else scheduler.step()"),
    "an epoch given to a subclass's step(*args, **kwargs) at step 100": (
        STAR, ONE + "scheduler.step(step) if step == 100 else scheduler.step()"),
    "a scheduler per epoch (StepLR)": (
        "scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2)",
        ONE.rstrip() + "\n        if step % 16 == 0: scheduler.step()"),
    "two optimizers, two cosines (the lane for several optimizers)": (
        OPT_B + COSINE + SCHED_B, TWO + "scheduler.step(); sched_b.step()"),
    "two optimizers, a subclass's step(self) and a subclass's step(*args, **kwargs)": (
        OPT_B + PLAIN + "\n" + STAR.replace("(optimizer,", "(opt_b,").replace("scheduler = Star", "sched_b = Star"),
        TWO + "scheduler.step(); sched_b.step()"),
    "two optimizers, a SequentialLR and a subclass's step(*args, **kwargs)": (
        OPT_B + SEQUENTIAL + "\n" + STAR.replace("(optimizer,", "(opt_b,").replace("scheduler = Star", "sched_b = Star"),
        TWO + "scheduler.step(); sched_b.step()"),
    "two optimizers, an epoch given by name at step 100": (
        OPT_B + COSINE + SCHED_B, TWO + "scheduler.step(); sched_b.step(epoch=step) if step == 100 else sched_b.step()"),
}


def _script(name: str) -> str:
    setup, batch = SCRIPTS[name]
    return LOOP.replace("SETUP", setup).replace("BATCH", batch)


def _params(ns) -> list:
    return [p.detach().clone() for m in (ns["model"], ns["head"]) for p in m.parameters()]


def _nothing_routine(monkeypatch) -> None:
    init = Engine.__init__

    def general(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.every_step.add("every step")  # no step is routine

    monkeypatch.setattr(Engine, "__init__", general)


def _counting(monkeypatch) -> list[int]:
    calls: list[int] = []
    original = Engine.on_scheduler_step

    def counted(self, *args, **kwargs):
        calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Engine, "on_scheduler_step", counted)
    return calls


def _unwatched(tmp_path, source: str) -> list:
    path = tmp_path / "plain.py"
    path.write_text(textwrap.dedent(source))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _params(runpy.run_path(str(path), run_name="__main__"))


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_both_wrapper_forms_keep_the_general_paths_records(name, run_script, monkeypatch, tmp_path):
    source = _script(name)
    plain = _unwatched(tmp_path, source)
    fast = run_script(source)
    _nothing_routine(monkeypatch)
    slow = run_script(source)
    assert _snapshot(fast.watch) == _snapshot(slow.watch)
    assert [(f.code, f.message, repr(sorted(f.evidence.items()))) for f in fast.findings] == [
        (f.code, f.message, repr(sorted(f.evidence.items()))) for f in slow.findings]
    for ran in (fast, slow):
        for a, b in zip(_params(ran.ns), plain, strict=True):
            torch.testing.assert_close(a, b, rtol=0, atol=0)  # the same training, bit for bit


@pytest.mark.parametrize("name", ["CosineAnnealingLR (torch's parameters)", "a subclass's step(self)",
                                  "a subclass's step(*args, **kwargs)", "a subclass's step(epoch=None) calling super()",
                                  "two optimizers, two cosines (the lane for several optimizers)",
                                  "two optimizers, a subclass's step(self) and a subclass's step(*args, **kwargs)"])
def test_the_lane_takes_the_steps_in_both_forms(name, run_script, monkeypatch):
    """(SequentialLR takes no lane, here as before: its children's steps are its own)"""
    calls = _counting(monkeypatch)
    run_script(_script(name))
    steps = 144 * (2 if name.startswith("two") else 1)
    assert len(calls) < steps // 4, len(calls)


def test_the_wrapper_form_follows_the_class():
    import lrdoctor

    signatures = {cls: inspect.signature(cls.step) for cls in (
        torch.optim.lr_scheduler.LRScheduler, torch.optim.lr_scheduler.CosineAnnealingWarmRestarts,
        torch.optim.lr_scheduler.SequentialLR, torch.optim.lr_scheduler.ReduceLROnPlateau)}
    with lrdoctor.watch(echo=lambda m: None):
        for cls in (torch.optim.lr_scheduler.LRScheduler, torch.optim.lr_scheduler.CosineAnnealingWarmRestarts):
            assert getattr(cls.step, "_lrdoctor", False)
            assert cls.step.__code__.co_varnames[:2] == ("self", "epoch"), cls
            assert not cls.step.__code__.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)
        for cls in (torch.optim.lr_scheduler.SequentialLR, torch.optim.lr_scheduler.ReduceLROnPlateau):
            assert getattr(cls.step, "_lrdoctor", False)
            assert cls.step.__code__.co_flags & inspect.CO_VARKEYWORDS, cls
        for cls, signature in signatures.items():  # (functools.wraps: what the user's tools read)
            assert inspect.signature(cls.step) == signature


def test_a_wrong_argument_is_still_a_type_error(run_script):
    with pytest.raises(TypeError):
        run_script(LOOP.replace("SETUP", COSINE).replace("BATCH", ONE + "scheduler.step(nonsense=1)"))


def test_torchs_warnings_name_the_users_line(run_script):
    """PyTorch's own warnings from step() (the order warning, the epoch deprecation) name the
    user's line, as without lrdoctor, now that the general path is a frame deeper."""
    source = """
import warnings
import torch
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = torch.optim.lr_scheduler.StepLR(opt, 1)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    sched.step()  # line 9: before any optimizer step
    sched.step(3)  # line 10: an epoch
"""
    ran = run_script(source)
    lines = sorted((w.filename.endswith("train.py"), w.lineno) for w in ran.ns["caught"])
    assert lines == [(True, 9), (True, 10)], [(w.filename, w.lineno, str(w.message)[:40]) for w in ran.ns["caught"]]


def _lane_blocks() -> list[str]:
    """The text of the lane's path in each of the wrapper's two forms."""
    source = inspect.getsource(hooks._wrap_scheduler_step)
    tree = ast.parse(textwrap.dedent(source))
    lines = textwrap.dedent(source).splitlines()
    blocks = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "step":
            lane_if = [n for n in node.body if isinstance(n, ast.If) and any(
                isinstance(b, ast.If) for b in n.body)]
            assert len(lane_if) == 1
            inner = lane_if[0].body
            blocks.append("\n".join(lines[inner[0].lineno - 1:inner[-1].end_lineno]))
    return blocks


def test_the_two_forms_run_the_same_lane_path():
    blocks = _lane_blocks()
    assert len(blocks) == 2
    assert blocks[0] == blocks[1]
    assert "lane.phase == EXPECT_SCHEDULER_STEP" in blocks[0] and "lane.phase == MULTI" in blocks[0]
