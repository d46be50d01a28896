"""Scheduler steps guarded by what the update itself reports (rcnew129, batch
fresh-2026-12zzzd129 in bench/realcode/README.md).

Programs written for these tests; no third-party code.

A per-batch scheduler stepped after ``scaler.step(optimizer)`` under float16 AMP runs ahead of
the real updates (LRD005), unless its step is guarded by a test that tells a skipped update.
lrdoctor knew the tests written beside the update (``scale_before <= scaler.get_scale()``,
``skip_lr_sched``) and a comparison of the optimizer's per-parameter state read before and
after it. Two other ways to ask were reported as if unguarded:

- the update made in a function of the project that returns whether it ran (``stepped =
  amp_step(loss)`` / ``if self.optimizer_step(loss):`` where the function returns
  ``scaler.get_scale() >= scale_before``, a name bound to such a comparison, or ``True`` on a
  path without a scaler): the test reads the function's answer. Every value the function
  returns must tell a skip; one that returns the loss, or ``True`` alone, tells nothing;
- the optimizer's own step count compared before and after the update (``before =
  optimizer._step_count`` ... ``if optimizer._step_count > before:``): torch's schedulers
  count the optimizer's ``step()`` calls there, and GradScaler skips an update by not calling
  it. A counter of the program's own that happens to share the name is no such count.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, findings, messages

HEAD = '''
import torch
from torch.utils.data import DataLoader, TensorDataset

data = DataLoader(TensorDataset(torch.randn(80, 6), torch.randn(80, 1)), batch_size=10)
net = torch.nn.Linear(6, 1)
opt = torch.optim.AdamW(net.parameters(), lr=2e-4)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda n: min(1.0, (n + 1) / 40))
scaler = torch.cuda.amp.GradScaler()
'''


def _lrd005(source: str) -> list[int]:
    return [line for code, line in findings(source) if code == "LRD005"]


def _loop(guarded_step: str) -> str:
    return '''
for epoch in range(6):
    for xb, yb in data:
        opt.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.mse_loss(net(xb), yb)
''' + guarded_step


# -- a helper that makes the update and answers whether it ran ----------------------------------

HELPER_COMPARES = '''
def amp_update(loss):
    scaler.scale(loss).backward()
    before = scaler.get_scale()
    scaler.step(opt)
    scaler.update()
    return scaler.get_scale() >= before
'''

HELPER_NAMES_IT = '''
def amp_update(loss):
    scaler.scale(loss).backward()
    before = scaler.get_scale()
    scaler.step(opt)
    scaler.update()
    skipped = scaler.get_scale() < before
    return not skipped
'''

HELPER_FP32_PATH = '''
use_amp = True


def amp_update(loss):
    if not use_amp:
        loss.backward()
        opt.step()
        return True
    scaler.scale(loss).backward()
    old_scale = scaler.get_scale()
    scaler.step(opt)
    scaler.update()
    return old_scale <= scaler.get_scale()
'''


@pytest.mark.parametrize("helper", [HELPER_COMPARES, HELPER_NAMES_IT, HELPER_FP32_PATH])
@pytest.mark.parametrize("step", [
    "        ran = amp_update(loss)\n        if ran:\n            sched.step()\n",
    "        if amp_update(loss):\n            sched.step()\n",
])
def test_step_guarded_by_the_helpers_answer_is_silent(helper: str, step: str) -> None:
    assert _lrd005(HEAD + helper + _loop(step)) == []


HELPER_LOSS = '''
def amp_update(loss):
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    return loss.item()
'''

HELPER_TRUE = '''
def amp_update(loss):
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    return True
'''


@pytest.mark.parametrize("helper", [HELPER_LOSS, HELPER_TRUE])
def test_a_helper_whose_answer_tells_nothing_of_a_skip_still_reports(helper: str) -> None:
    src = HEAD + helper + _loop(
        "        value = amp_update(loss)\n        if value:\n            sched.step()\n")
    assert _lrd005(src) == [len(src.splitlines())]


def test_the_answer_ignored_still_reports() -> None:
    src = HEAD + HELPER_COMPARES + _loop("        amp_update(loss)\n        sched.step()\n")
    assert _lrd005(src) == [len(src.splitlines())]


def test_an_answer_from_a_function_that_makes_no_update_still_reports() -> None:
    src = HEAD + '''
def small(loss):
    value = loss.item()
    return value < 10.0
''' + _loop('''        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        if small(loss):
            sched.step()
''')
    assert _lrd005(src) == [len(src.splitlines())]


TRAINER = '''
import torch


class Fitter:
    def __init__(self, net, data, epochs):
        self.net, self.data, self.epochs = net, data, epochs
        self.opt = torch.optim.AdamW(net.parameters(), lr=1e-4)
        self.sched = torch.optim.lr_scheduler.OneCycleLR(
            self.opt, max_lr=1e-4, total_steps=epochs * len(data))
        self.scaler = torch.amp.GradScaler("cuda")

    def update(self, loss):
        self.opt.zero_grad()
        self.scaler.scale(loss).backward()
        scale = self.scaler.get_scale()
        self.scaler.step(self.opt)
        self.scaler.update()
        RETURN

    def fit(self):
        for epoch in range(self.epochs):
            for xb, yb in self.data:
                with torch.autocast("cuda", dtype=torch.float16):
                    loss = torch.nn.functional.mse_loss(self.net(xb), yb)
                if self.update(loss):
                    self.sched.step()
'''

DRIVER = '''
import torch
from torch.utils.data import DataLoader, TensorDataset
from engine.fitter import Fitter

if __name__ == "__main__":
    data = DataLoader(TensorDataset(torch.randn(64, 4), torch.randn(64, 1)), batch_size=8)
    Fitter(torch.nn.Linear(4, 1), data, 5).fit()
'''


@pytest.mark.parametrize("returned, reported", [
    ("return self.scaler.get_scale() >= scale", False),
    ("return scale <= self.scaler.get_scale()", False),
    ("return loss.detach()", True),
])
def test_trainer_method_that_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     returned: str, reported: bool) -> None:
    files = {
        "engine/__init__.py": "",
        "engine/fitter.py": TRAINER.replace("RETURN", returned),
        "train.py": DRIVER,
    }
    found = [f for f in check_project(tmp_path, monkeypatch, files) if f[2] == "LRD005"]
    assert bool(found) == reported


# -- the optimizer's own step count ------------------------------------------------------------


@pytest.mark.parametrize("before, test", [
    ("count = opt._step_count", "opt._step_count > count"),
    ('count = getattr(opt, "_step_count", 0)', 'getattr(opt, "_step_count", 0) != count'),
])
def test_step_guarded_by_the_optimizers_step_count_is_silent(before: str, test: str) -> None:
    src = HEAD + _loop(f'''        scaler.scale(loss).backward()
        {before}
        scaler.step(opt)
        scaler.update()
        if {test}:
            sched.step()
''')
    assert _lrd005(src) == []


def test_a_count_of_the_programs_own_is_no_skip_test() -> None:
    src = HEAD + "calls = {'_step_count': 0}\n" + _loop('''        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        calls["_step_count"] += 1
        if calls["_step_count"] > 0:
            sched.step()
''')
    assert _lrd005(src) == [len(src.splitlines())]


def test_the_step_count_read_only_after_the_update_tells_nothing() -> None:
    src = HEAD + _loop('''        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        if opt._step_count > 0:
            sched.step()
''')
    assert _lrd005(src) == [len(src.splitlines())]


# -- Lightning Fabric's float16 mixed precision -------------------------------------------------
#
# ``Fabric(precision="16-mixed")`` runs the optimizer's step() of ``fabric.setup(model,
# optimizer)`` through its precision plugin, a GradScaler that skips the update on inf/NaN
# gradients. Fabric never takes the scheduler, so a per-batch scheduler stepped after that
# step() runs ahead of the real updates, as after ``scaler.step(optimizer)``. This was not
# reported (rcnew125 did the same for Accelerate's ``mixed_precision="fp16"``). Float16 is
# known from the call: a literal (``"16-mixed"``, or the older ``16`` / ``"16"``); a
# precision read from a setting, bf16, "16-true" (no scaler) and "32-true" stay silent.

FABRIC = '''
import torch
from lightning.fabric import Fabric
from torch.utils.data import DataLoader, TensorDataset


def train(epochs=4):
    fabric = Fabric(accelerator="cuda", PRECISION)
    fabric.launch()
    net = torch.nn.Linear(5, 1)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-4)
    data = DataLoader(TensorDataset(torch.randn(48, 5), torch.randn(48, 1)), batch_size=6)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda n: min(1.0, (n + 1) / 25))
    SETUP
    data = fabric.setup_dataloaders(data)
    for epoch in range(epochs):
        for xb, yb in data:
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(net(xb), yb)
            fabric.backward(loss)
            opt.step()
            STEP


if __name__ == "__main__":
    train()
'''

SETUP_BOTH = "net, opt = fabric.setup(net, opt)"
SETUP_APART = "net = fabric.setup_module(net)\n    opt = fabric.setup_optimizers(opt)"


def _fabric(precision: str, setup: str = SETUP_BOTH, step: str = "sched.step()") -> str:
    return FABRIC.replace("PRECISION", precision).replace("SETUP", setup).replace("STEP", step)


@pytest.mark.parametrize("precision", ['precision="16-mixed"', "precision=16", 'precision="16"'])
@pytest.mark.parametrize("setup", [SETUP_BOTH, SETUP_APART])
def test_fabric_float16_per_batch_scheduler_reports(precision: str, setup: str) -> None:
    src = _fabric(precision, setup)
    assert _lrd005(src) == [next(i for i, line in enumerate(src.splitlines(), 1)
                                 if line.strip() == "sched.step()")]
    assert any("Fabric's `16-mixed`" in m for m in messages(src) if "scheduler" in m)


@pytest.mark.parametrize("precision", [
    'precision="bf16-mixed"', 'precision="16-true"', 'precision="32-true"',
    "precision=PRECISION_SETTING", 'precision="16-mixed" if torch.cuda.is_available() else "32"',
    "devices=1",
])
def test_fabric_other_precisions_are_silent(precision: str) -> None:
    src = _fabric(precision).replace("def train(", 'PRECISION_SETTING = "bf16-mixed"\n\n\ndef train(')
    assert _lrd005(src) == []


def test_fabric_float16_scheduler_stepped_per_epoch_is_silent() -> None:
    src = _fabric('precision="16-mixed"', step="pass").replace(
        "            pass\n", "            pass\n        sched.step()\n")
    assert _lrd005(src) == []
