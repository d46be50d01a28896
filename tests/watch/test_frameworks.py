"""lrdoctor on the frameworks most people train with: Hugging Face Trainer, Accelerate and
Lightning (Trainer and Fabric). Each script is a real framework run on CPU with a tiny
random-init model and generated data (nothing downloaded): correct configurations must be
silent, the frameworks' typical bugs found at the user's line, and training must come out
the same with and without lrdoctor."""

from __future__ import annotations

import os
import runpy
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import lrdoctor

torch = pytest.importorskip("torch")
# installed by the dev setup (pinned in pyproject's dev extras): a missing install must fail
import accelerate  # noqa: E402,F401
import lightning  # noqa: E402,F401
import transformers  # noqa: E402,F401


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    """Nothing here may touch the network: the hub is off and any connection attempt is
    recorded (and refused) so a test can assert there was none."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    attempts: list = []

    def refuse(self, address, *args, **kwargs):
        if self.family in (socket.AF_INET, socket.AF_INET6):
            attempts.append(address)
            raise OSError("network access attempted in a test")
        return real_connect(self, address, *args, **kwargs)

    real_connect = socket.socket.connect
    monkeypatch.setattr(socket.socket, "connect", refuse)
    yield attempts
    assert attempts == [], f"network access attempted: {attempts}"


def _reset_accelerate() -> None:
    # Accelerate keeps process-wide singletons; each script starts as a fresh process would
    from accelerate.state import AcceleratorState, GradientState, PartialState

    AcceleratorState._reset_state(True)
    GradientState._reset_state()
    PartialState._reset_state()


class Run:
    def __init__(self, ns: dict, watch: lrdoctor.Watch | None, messages: list[str]) -> None:
        self.ns = ns
        self.watch = watch
        self.messages = messages

    @property
    def codes(self) -> list[str]:
        assert self.watch is not None
        return sorted(f.code for f in self.watch.findings)

    def only(self, code: str):
        assert self.watch is not None
        hits = [f for f in self.watch.findings if f.code == code]
        assert len(hits) == 1, f"expected one {code}, got {self.codes}:\n{self.watch.report()}"
        return hits[0]

    def line_of(self, text: str) -> int:
        """The line of ``text`` in the script (a finding's expected location)."""
        lines = self.ns["__source__"].splitlines()
        (hit,) = [i + 1 for i, line in enumerate(lines) if text in line]
        return hit


@pytest.fixture
def run(tmp_path: Path, monkeypatch):
    """``run(source, *argv, watched=True)``: write ``train.py``, run it in this process (under
    ``lrdoctor.watch()`` unless ``watched=False``) with ``sys.argv`` set, from ``tmp_path``."""
    monkeypatch.chdir(tmp_path)

    def go(source: str, *argv: str, watched: bool = True) -> Run:
        source = textwrap.dedent(source)
        path = tmp_path / "train.py"
        path.write_text(source)
        monkeypatch.setattr(sys, "argv", [str(path), *argv])
        _reset_accelerate()
        messages: list[str] = []
        w = lrdoctor.watch(echo=messages.append) if watched else None
        if w is not None:
            with w:
                ns = runpy.run_path(str(path), run_name="__main__")
            assert not any("internal error" in m for m in messages), messages
        else:
            ns = runpy.run_path(str(path), run_name="__main__")
        ns["__source__"] = source
        return Run(ns, w, messages)

    return go


def assert_same_training(run, source: str, *argv: str) -> Run:
    """Run ``source`` without and with lrdoctor: same losses, same final parameters."""
    plain = run(source, *argv, watched=False)
    watched = run(source, *argv)
    assert watched.ns["losses"] == plain.ns["losses"]
    for a, b in zip(plain.ns["final"], watched.ns["final"]):
        assert torch.equal(a, b)
    return watched


# ---- Accelerate ---------------------------------------------------------------------------

ACCELERATE = """
import sys
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset
from transformers import get_linear_schedule_with_warmup

accum = int(sys.argv[1])
bug = sys.argv[2] if len(sys.argv) > 2 else ""
torch.manual_seed(0)
accelerator = Accelerator(cpu=True, gradient_accumulation_steps=accum)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
loader = DataLoader(TensorDataset(torch.randn(64, 8), torch.randn(64, 1)), batch_size=8)
epochs = 2
model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
# the scheduler is built on the prepared optimizer (an AcceleratedOptimizer wrapper)
if bug == "no_div":
    total = len(loader) * epochs  # forgets gradient accumulation
else:
    total = len(loader) * epochs // accum
scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=2, num_training_steps=total)
scheduler = accelerator.prepare(scheduler)
losses = []
for epoch in range(epochs):
    for x, y in loader:
        with accelerator.accumulate(model):
            loss = torch.nn.functional.mse_loss(model(x), y)
            accelerator.backward(loss)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
        losses.append(loss.item())
final = [p.detach().clone() for p in model.parameters()]
"""

ACCELERATE_SCALER = """
import sys
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset
from transformers import get_cosine_schedule_with_warmup

# a GradScaler of the user's own, stepping the prepared optimizer; at 2**127 the scaled loss
# (about 100) overflows float32, so the first updates are skipped while the scale halves
init_scale = 2.0 ** int(sys.argv[1])
torch.manual_seed(0)
accelerator = Accelerator(cpu=True)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
loader = DataLoader(TensorDataset(torch.randn(64, 8), torch.randn(64, 1)), batch_size=8)
model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
scheduler = get_cosine_schedule_with_warmup(optimizer, num_warmup_steps=2,
                                            num_training_steps=2 * len(loader))
scaler = torch.amp.GradScaler("cpu", init_scale=init_scale)
losses = []
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y * 10)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        scheduler.step()
        losses.append(loss.item())
final = [p.detach().clone() for p in model.parameters()]
"""


@pytest.mark.parametrize("accum", ["1", "2"])
def test_accelerate_loop_with_scheduler_on_prepared_optimizer_is_silent(run, accum):
    ran = assert_same_training(run, ACCELERATE, accum)
    assert ran.codes == [], ran.watch.report()
    (opt,) = ran.watch.engine.optimizers.values()
    # the wrapper and the AdamW it wraps are one optimizer, named after the one that steps
    assert opt.label == "AdamW"
    assert opt.attempts == 16 // int(accum)
    (sched,) = ran.watch.engine.schedulers.values()
    assert sched.optimizer_key == opt.key
    assert "get_linear_schedule_with_warmup" in sched.label


def test_accelerate_num_training_steps_not_divided_by_accumulation_is_reported(run):
    ran = run(ACCELERATE, "2", "no_div")
    f = ran.only("LRD011")
    assert ran.codes == ["LRD011"], ran.watch.report()
    assert "at step 8 of its 16-step horizon (50%)" in f.message
    assert "gradient accumulation" in f.message and "one every 2 batches" in f.message
    assert f.location.line == ran.line_of("scheduler.step()")


def test_gradscaler_on_the_prepared_optimizer_counts_each_update_once(run):
    ran = assert_same_training(run, ACCELERATE_SCALER, "16")
    assert ran.codes == [], ran.watch.report()
    (opt,) = ran.watch.engine.optimizers.values()
    assert (opt.attempts, opt.taken, opt.skipped) == (16, 16, 0)


def test_gradscaler_skip_on_the_prepared_optimizer_is_lrd005_not_lrd109(run):
    ran = assert_same_training(run, ACCELERATE_SCALER, "127")
    (opt,) = ran.watch.engine.optimizers.values()
    assert opt.attempts == 16 and opt.skipped >= 1 and opt.taken + opt.skipped == 16
    assert ran.codes == ["LRD005"], ran.watch.report()
    f = ran.only("LRD005")
    assert f"skipped {opt.skipped} of 16 AdamW steps" in f.message
    assert f.location.line == ran.line_of("scheduler.step()")


# ---- Hugging Face Trainer ---------------------------------------------------------------

HF_TRAINER = """
import sys
import torch
from torch.utils.data import Dataset
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments

schedule, accum = sys.argv[1], int(sys.argv[2])
bug = sys.argv[3] if len(sys.argv) > 3 else ""

class Tokens(Dataset):
    def __init__(self, n):
        g = torch.Generator().manual_seed(0)
        self.x = torch.randint(0, 50, (n, 8), generator=g)
        self.y = torch.randint(0, 2, (n,), generator=g)
    def __len__(self):
        return len(self.y)
    def __getitem__(self, i):
        return {"input_ids": self.x[i], "labels": self.y[i]}

torch.manual_seed(0)
config = BertConfig(vocab_size=50, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                    intermediate_size=32, max_position_embeddings=16)
model = BertForSequenceClassification(config)
data = Tokens(64)
args = TrainingArguments(output_dir="out", per_device_train_batch_size=8, num_train_epochs=2,
                         gradient_accumulation_steps=accum, learning_rate=1e-3,
                         lr_scheduler_type=schedule, warmup_steps=2, logging_strategy="no",
                         save_strategy="no", report_to=[], use_cpu=True, seed=0, disable_tqdm=True)
optimizers = (None, None)
if bug == "onecycle":
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    batches = len(data) // 8 * 2  # counts batches; the Trainer steps it once per update
    optimizers = (optimizer, torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3,
                                                                 total_steps=batches))
trainer = Trainer(model=model, args=args, train_dataset=data, optimizers=optimizers)
result = trainer.train()
losses = [result.training_loss]
final = [p.detach().clone() for p in model.parameters()]
"""


@pytest.mark.parametrize("schedule,accum", [("linear", "1"), ("linear", "2"), ("cosine", "1"),
                                            ("cosine", "2")])
def test_hf_trainer_with_warmup_schedules_is_silent(run, schedule, accum):
    if (schedule, accum) == ("cosine", "2"):  # once (a Trainer run is the slow part)
        ran = assert_same_training(run, HF_TRAINER, schedule, accum)
    else:
        ran = run(HF_TRAINER, schedule, accum)
    assert ran.codes == [], ran.watch.report()
    eng = ran.watch.engine
    (opt,) = eng.optimizers.values()
    (sched,) = eng.schedulers.values()
    updates = 16 // int(accum)
    assert opt.attempts == sched.user_steps == updates
    # the horizon is read from the transformers builder, not guessed
    assert sched.shape.horizon == updates and sched.shape.warmup == 2
    assert f"num_training_steps={updates}" in sched.label


def test_onecycle_handed_to_hf_trainer_that_ignores_accumulation_is_reported(run):
    ran = run(HF_TRAINER, "linear", "2", "onecycle")
    assert ran.codes == ["LRD011"], ran.watch.report()
    f = ran.only("LRD011")
    assert "OneCycleLR(total_steps=16) at step 8 of its 16-step horizon (50%)" in f.message
    assert "gradient accumulation" in f.message
    assert f.location.line == ran.line_of("trainer.train()")


# ---- Lightning ------------------------------------------------------------------------------

LIGHTNING = """
import torch
import lightning as L
from torch.utils.data import DataLoader, TensorDataset

class Model(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
        self.losses = []

    def training_step(self, batch, i):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.net(x), y)
        self.losses.append(loss.item())
        return loss

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=1e-2)
        sched = torch.optim.lr_scheduler.OneCycleLR(
            opt, max_lr=1e-2, total_steps=self.trainer.estimated_stepping_batches)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}

torch.manual_seed(0)
train = DataLoader(TensorDataset(torch.randn(64, 8), torch.randn(64, 1)), batch_size=8)
model = Model()
trainer = L.Trainer(max_epochs=2, accelerator="cpu", logger=False, enable_checkpointing=False,
                    enable_progress_bar=False, enable_model_summary=False)
trainer.fit(model, train)
losses = model.losses
final = [p.detach().clone() for p in model.parameters()]
"""

FABRIC = """
import torch
from lightning.fabric import Fabric
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
fabric = Fabric(accelerator="cpu", devices=1)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
model, optimizer = fabric.setup(model, optimizer)
loader = fabric.setup_dataloaders(
    DataLoader(TensorDataset(torch.randn(64, 8), torch.randn(64, 1)), batch_size=8))
# as in Fabric's image-classifier example: the scheduler on the optimizer fabric.setup returned
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)
losses = []
for epoch in range(3):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        fabric.backward(loss)
        optimizer.step()
        losses.append(loss.item())
    scheduler.step()
final = [p.detach().clone() for p in model.parameters()]
"""


def test_lightning_trainer_with_per_step_onecycle_is_silent_and_unchanged(run):
    ran = assert_same_training(run, LIGHTNING)
    assert ran.codes == [], ran.watch.report()
    (opt,) = ran.watch.engine.optimizers.values()
    assert opt.label == "AdamW" and opt.attempts == 16


def test_fabric_scheduler_on_the_wrapped_optimizer_is_silent_and_unchanged(run):
    ran = assert_same_training(run, FABRIC)
    assert ran.codes == [], ran.watch.report()
    (opt,) = ran.watch.engine.optimizers.values()
    (sched,) = ran.watch.engine.schedulers.values()
    assert opt.label == "Adadelta" and sched.optimizer_key == opt.key
    assert sched.epoch_steps == [1, 1, 1]


# ---- LambdaLR horizons --------------------------------------------------------------------


def test_hf_cosine_with_warmup_horizon_is_its_num_training_steps_not_a_later_zero():
    from transformers import get_cosine_schedule_with_warmup

    from lrdoctor.schedulers import lambda_shape, probe_lambda

    opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.1)
    sched = get_cosine_schedule_with_warmup(opt, num_warmup_steps=4, num_training_steps=40)
    shape = lambda_shape(sched.lr_lambdas)
    assert (shape.horizon, shape.warmup, shape.rises_after) == (40, 4, True)
    assert shape.builder == "get_cosine_schedule_with_warmup"
    # the same curve written by hand is probed step by step: the cosine is 0 again at 256
    # (7 half-periods), which a doubling search mistook for the horizon
    import math

    def by_hand(s):
        if s < 4:
            return s / 4
        return max(0.0, 0.5 * (1 + math.cos(math.pi * (s - 4) / 36)))

    probed = probe_lambda(by_hand)
    assert (probed.horizon, probed.warmup, probed.rises_after) == (40, 4, True)


@pytest.mark.parametrize("factor,horizon,warmup", [
    (lambda s: max(0.0, 1 - s / 30), 30, None),
    (lambda s: max(0.1, 1 - s / 50), 45, None),  # held at its floor from step 45
    (lambda s: min(1.0, (s + 1) / 20), None, 19),  # warm-up, then constant
    (lambda e: 0.95 ** e, None, None),  # only approaches 0 (underflows far later)
    (lambda e: 0.1 ** (e // 30), None, None),  # step decay every 30 epochs, no end
])
def test_lambda_horizon_is_probed_from_the_factor(factor, horizon, warmup):
    from lrdoctor.schedulers import probe_lambda

    shape = probe_lambda(factor)
    assert (shape.horizon, shape.warmup) == (horizon, warmup)


def test_probing_a_stateful_lambda_leaves_the_original_untouched():
    from lrdoctor.schedulers import probe_lambda

    class Counting:
        calls = 0

        def __init__(self):
            self.seen = 0

        def __call__(self, step):
            self.seen += 1
            return max(0.0, 1 - step / 10)

    fn = Counting()
    assert probe_lambda(fn).horizon == 10
    assert fn.seen == 0


def test_lambda_sized_for_twice_the_run_is_reported_at_exactly_half(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent("""
        import torch
        model = torch.nn.Linear(4, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        total = 40
        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: max(0.0, 1 - s / total))
        for step in range(20):
            optimizer.zero_grad()
            model(torch.ones(4)).sum().backward()
            optimizer.step()
            scheduler.step()
    """))
    with lrdoctor.watch(echo=lambda m: None) as w:
        runpy.run_path(str(script), run_name="__main__")
    (f,) = w.findings
    assert f.code == "LRD011" and "at step 20 of its 40-step horizon (50%)" in f.message
    assert f.location.line == 11


# ---- warnings are exactly Python's ----------------------------------------------------------

WARNINGS = """
import warnings
import torch

def load_batch():
    warnings.warn("shown once per location")  # like a DataLoader's warning
    return torch.ones(2)

model = torch.nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2)
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)
for i in range(3):
    x = load_batch()
    scheduler.step()  # before optimizer.step(): PyTorch's order warning, at this line
    model(x).sum().backward()
    optimizer.step()
    plateau.step(1.0, epoch=i)  # deprecated epoch argument, warned at this line
"""


def _stderr(args: list[str], cwd: Path) -> str:
    env = {**os.environ, "NO_COLOR": "1", "PYTHONWARNINGS": ""}
    result = subprocess.run(args, capture_output=True, text=True, timeout=300, cwd=cwd, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stderr


def test_warnings_under_lrdoctor_run_are_exactly_pythons(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(WARNINGS)
    plain = _stderr([sys.executable, str(script)], tmp_path)
    watched = _stderr([sys.executable, "-m", "lrdoctor", "run", str(script)], tmp_path)
    shown = watched.split("\nlrdoctor: watched")[0].rstrip("\n")
    assert plain.count("shown once per location") == 2  # the message line and its source
    assert shown.replace(str(script), "train.py") == plain.rstrip("\n").replace(str(script), "train.py")


# ---- messages whose numbers add up, locations that point at the cause -----------------------

PLAIN = """
import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
loader = DataLoader(TensorDataset(torch.randn(128, 8), torch.randn(128, 1)), batch_size=8)
model = torch.nn.Linear(8, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
"""


def test_lrd017_message_counts_the_whole_run(run):
    ran = run(PLAIN + """
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=3 * 16)
for epoch in range(3):
    for i, (x, y) in enumerate(loader):
        (torch.nn.functional.mse_loss(model(x), y) / 2).backward()
        if i % 2 == 1:
            optimizer.step()
            optimizer.zero_grad()
        scheduler.step()
""")
    f = ran.only("LRD017")
    assert "stepped 2 times per SGD step" in f.message
    assert "48 scheduler steps for 24 optimizer steps" in f.message
    assert f.evidence["scheduler_steps"] == 48 and f.evidence["optimizer_steps"] == 24


def test_manual_lr_write_is_reported_at_the_write(run):
    ran = run(PLAIN + """
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)

def train_one_epoch():
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()

for epoch in range(3):
    if epoch == 1:
        for group in optimizer.param_groups:
            group["lr"] = 0.3
    train_one_epoch()
    scheduler.step()
""")
    f = ran.only("LRD008")
    assert f.location.line == ran.line_of('group["lr"] = 0.3')
    assert f"(at train.py:{ran.line_of('scheduler.step()')})" in f.message


def test_lightning_manual_warmup_in_optimizer_step_beside_a_scheduler_points_at_the_write(run):
    ran = run("""
import torch
import lightning as L
from torch.utils.data import DataLoader, TensorDataset

class Model(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(8, 1)

    def training_step(self, batch, i):
        x, y = batch
        return torch.nn.functional.mse_loss(self.net(x), y)

    def configure_optimizers(self):
        opt = torch.optim.SGD(self.parameters(), lr=0.1)
        return {"optimizer": opt, "lr_scheduler": torch.optim.lr_scheduler.StepLR(opt, 1, 0.5)}

    def optimizer_step(self, epoch, batch_idx, optimizer, optimizer_closure):
        optimizer.step(closure=optimizer_closure)
        if self.trainer.global_step < 12:  # manual warm-up, fighting the StepLR
            for pg in optimizer.param_groups:
                pg["lr"] = 0.1 * min(1.0, (self.trainer.global_step + 1) / 12)

torch.manual_seed(0)
train = DataLoader(TensorDataset(torch.randn(64, 8), torch.randn(64, 1)), batch_size=8)
trainer = L.Trainer(max_epochs=3, accelerator="cpu", logger=False, enable_checkpointing=False,
                    enable_progress_bar=False, enable_model_summary=False)
trainer.fit(Model(), train)
""")
    f = ran.only("LRD008")
    assert f.location.line == ran.line_of('pg["lr"] = 0.1')


LIGHTNING_AMP = """
import torch
import lightning as L
from lightning.pytorch.plugins import MixedPrecision
from torch.utils.data import DataLoader, TensorDataset

class Model(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(8, 1)

    def training_step(self, batch, i):
        x, y = batch
        return torch.nn.functional.mse_loss(self.net(x), y * 10)

    def configure_optimizers(self):
        opt = torch.optim.SGD(self.parameters(), lr=0.01)
        sched = torch.optim.lr_scheduler.OneCycleLR(
            opt, max_lr=0.01, total_steps=self.trainer.estimated_stepping_batches)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}

torch.manual_seed(0)
train = DataLoader(TensorDataset(torch.randn(64, 8), torch.randn(64, 1)), batch_size=8)
# float16 autocast on CPU; at 2**14 the first two updates overflow and are skipped
scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 14)
trainer = L.Trainer(max_epochs=2, accelerator="cpu", logger=False, enable_checkpointing=False,
                    enable_progress_bar=False, enable_model_summary=False,
                    plugins=[MixedPrecision("16-mixed", "cpu", scaler=scaler)])
trainer.fit(Model(), train)
"""


def test_lightning_amp_order_warning_is_explained_and_shown_where_python_shows_it(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(LIGHTNING_AMP)
    report = tmp_path / "report.json"
    plain = _stderr([sys.executable, str(script)], tmp_path)
    watched = _stderr([sys.executable, "-m", "lrdoctor", "run", "--json", str(report), str(script)],
                      tmp_path)
    # PyTorch's warning names Lightning's line that stepped the scheduler, with or without us
    assert "lightning/pytorch/core/module.py" in plain and "Detected call of" in plain
    assert watched.split("\nlrdoctor: watched")[0].rstrip("\n") == plain.rstrip("\n")
    import json

    findings = json.loads(report.read_text())["findings"]
    assert [f["code"] for f in findings] == ["LRD005"]
    message = findings[0]["message"]
    assert "skipped 2 of 16 SGD steps" in message
    assert "was caused by GradScaler skipping the first 2 optimizer steps" in message
    assert findings[0]["location"]["line"] == LIGHTNING_AMP.splitlines().index(
        "trainer.fit(Model(), train)") + 1


ACCELERATE_TWO_PROCESSES = """
import sys
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
accelerator = Accelerator(cpu=True)
model = torch.nn.Linear(8, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(torch.randn(64, 8), torch.randn(64, 1)), batch_size=8)
total = len(loader) * 2  # the batches of all processes: what Accelerate expects
model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
if sys.argv[1] == "per_process":
    total = len(loader) * 2  # the prepared loader holds 1/num_processes of the batches
# a linear decay to 0 written by hand (its horizon is probed from the lambda)
scheduler = accelerator.prepare(
    torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: max(0.0, 1 - s / total)))
for epoch in range(2):
    for x, y in loader:
        accelerator.backward(torch.nn.functional.mse_loss(model(x), y))
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
"""


@pytest.mark.parametrize("sizing", ["all_processes", "per_process"])
def test_accelerate_two_processes_prepared_scheduler_steps_once_per_process(tmp_path, sizing):
    # Accelerate steps a prepared scheduler num_processes times per update, by design: with
    # the schedule sized in the batches of all processes that is right; sized from the
    # prepared (per-process) loader, the LR reaches 0 halfway through training
    import json

    script = tmp_path / "train.py"
    script.write_text(ACCELERATE_TWO_PROCESSES)
    _stderr([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
             "-m", "lrdoctor", "run", "--json", str(tmp_path / "report.rank{rank}.json"), str(script),
             sizing],
            tmp_path)
    for rank in (0, 1):
        report = json.loads((tmp_path / f"report.rank{rank}.json").read_text())
        codes = [f["code"] for f in report["findings"]]
        if sizing == "all_processes":
            assert codes == [], report["findings"]
        else:
            assert codes == ["LRD010"], report["findings"]
            message = report["findings"][0]["message"]
            assert "after optimizer step 4 of 8: the remaining 4 updates trained at LR 0" in message
            assert "Accelerate steps a prepared scheduler once per process (2 processes)" in message


ACCELERATE_PLATEAU = """
import sys
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
accelerator = Accelerator(cpu=True, step_scheduler_with_optimizer=sys.argv[1] == "prepared")
model = torch.nn.Linear(8, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(torch.randn(64, 8), torch.randn(64, 1)), batch_size=8)
model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
scheduler = accelerator.prepare(torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=3))
for epoch in range(3):
    total = torch.zeros(())
    for x, y in loader:
        loss = torch.nn.functional.mse_loss(model(x), y)
        accelerator.backward(loss)
        optimizer.step()
        optimizer.zero_grad()
        total += loss.detach()
    scheduler.step(accelerator.gather(total).mean().item())  # the same metric on every process
"""


@pytest.mark.parametrize("stepping", ["prepared", "once_per_call"])
def test_accelerate_two_processes_prepared_plateau_counts_each_epoch_twice(tmp_path, stepping):
    # Accelerate steps a prepared scheduler once per process: right for a schedule counted in
    # batches, wrong for ReduceLROnPlateau, whose patience then counts each epoch twice
    import json

    script = tmp_path / "train.py"
    script.write_text(ACCELERATE_PLATEAU)
    _stderr([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
             "-m", "lrdoctor", "run", "--json", str(tmp_path / "report.json"), str(script),
             stepping], tmp_path)
    report = json.loads((tmp_path / "report.json").read_text())
    codes = [f["code"] for f in report["findings"]]
    if stepping == "once_per_call":  # Accelerator(step_scheduler_with_optimizer=False)
        assert codes == [], report["findings"]
        return
    assert codes == ["LRD017"], report["findings"]
    [finding] = report["findings"]
    assert finding["ranks"] == [0, 1] and finding["line"] == 22
    assert ("ReduceLROnPlateau(patience=3) is stepped 2 times per call: Accelerate steps a "
            "prepared scheduler once per process (2 processes)") in finding["message"]
    assert "cut after 2 epochs without improvement instead of 4" in finding["message"]
