"""Checkpoints written and resumed by Lightning's Trainer and Hugging Face's Trainer: both save
the scheduler's state through their own paths, so watching them must be silent about LRD007, and
`lrdoctor ckpt` must read what they wrote. Each framework runs once per module (real 2-step runs
on CPU, tiny random-init models, generated data), then resumes from its checkpoint."""

from __future__ import annotations

import json
import os
import runpy
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

import lrdoctor
from lrdoctor.cli import main

torch = pytest.importorskip("torch")
import lightning  # noqa: E402,F401  (pinned in the dev extras: a missing install must fail)
import transformers  # noqa: E402,F401

LIGHTNING = """
import sys
import torch
import lightning as L
from torch.utils.data import DataLoader, TensorDataset

class Model(L.LightningModule):
    def __init__(self, drop_scheduler=False):
        super().__init__()
        self.net = torch.nn.Linear(8, 1)
        self.drop_scheduler = drop_scheduler

    def training_step(self, batch, i):
        x, y = batch
        return torch.nn.functional.mse_loss(self.net(x), y)

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=1e-2)
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-2, total_steps=4)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}

    def on_save_checkpoint(self, checkpoint):
        if self.drop_scheduler:  # a user trimming checkpoints: the schedule is lost
            del checkpoint["lr_schedulers"]

torch.manual_seed(0)
train = DataLoader(TensorDataset(torch.randn(16, 8), torch.randn(16, 1)), batch_size=8)
resume = sys.argv[1] if len(sys.argv) > 1 and sys.argv[1] != "drop" else None
trainer = L.Trainer(max_steps=4 if resume else 2, accelerator="cpu", logger=False, default_root_dir=".",
                    enable_progress_bar=False, enable_model_summary=False)
trainer.fit(Model(drop_scheduler="drop" in sys.argv), train, ckpt_path=resume)
"""

HF_TRAINER = """
import sys
import torch
from torch.utils.data import Dataset
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments

class Tokens(Dataset):
    def __init__(self, n):
        g = torch.Generator().manual_seed(0)
        self.x = torch.randint(0, 50, (n, 8), generator=g)
        self.y = torch.randint(0, 2, (n,), generator=g)
    def __len__(self):
        return len(self.y)
    def __getitem__(self, i):
        return {"input_ids": self.x[i], "labels": self.y[i]}

resume = sys.argv[1] if len(sys.argv) > 1 else None
torch.manual_seed(0)
config = BertConfig(vocab_size=50, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                    intermediate_size=32, max_position_embeddings=16)
model = BertForSequenceClassification(config)
args = TrainingArguments(output_dir="out", per_device_train_batch_size=8, max_steps=4 if resume else 2,
                         learning_rate=1e-3, lr_scheduler_type="linear", warmup_steps=1,
                         logging_strategy="no", save_strategy="steps", save_steps=2, report_to=[],
                         use_cpu=True, seed=0, disable_tqdm=True)
Trainer(model=model, args=args, train_dataset=Tokens(32)).train(resume_from_checkpoint=resume)
"""


def _run(folder: Path, source: str, *argv: str) -> list:
    """Run ``source`` as train.py in ``folder``, watched; its findings."""
    path = folder / "train.py"
    path.write_text(textwrap.dedent(source))
    old_cwd, old_argv = os.getcwd(), sys.argv
    os.chdir(folder)
    sys.argv = [str(path), *argv]
    messages: list[str] = []
    try:
        with lrdoctor.watch(echo=messages.append) as w:
            runpy.run_path(str(path), run_name="__main__")
    finally:
        os.chdir(old_cwd)
        sys.argv = old_argv
    assert not any("internal error" in m for m in messages), messages
    return w.findings


@pytest.fixture(scope="module")
def lightning_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lightning")
    first = _run(folder, LIGHTNING)
    (ckpt,) = (folder / "checkpoints").glob("*.ckpt")
    resumed = _run(folder, LIGHTNING, str(ckpt))
    return folder, ckpt, first, resumed


def _run_hf(folder: Path, source: str, *argv: str) -> list:
    old = {k: os.environ.get(k) for k in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
    os.environ.update({k: "1" for k in old})
    from accelerate.state import AcceleratorState, GradientState, PartialState

    # Accelerate keeps process-wide singletons: each run starts as a fresh process would
    AcceleratorState._reset_state(True)
    GradientState._reset_state()
    PartialState._reset_state()
    try:
        return _run(folder, source, *argv)
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@pytest.fixture(scope="module")
def hf_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hf")
    first = _run_hf(folder, HF_TRAINER)
    resumed = _run_hf(folder, HF_TRAINER, "out/checkpoint-2")
    return folder, first, resumed


def lrd007(findings: list) -> list:
    return [f for f in findings if f.code == "LRD007"]


def test_lightning_checkpointing_and_resume_are_silent(lightning_run):
    _, _, first, resumed = lightning_run
    assert lrd007(first) == []
    # the resumed run finishes the 4-step OneCycleLR from where the checkpoint left it (step 2):
    # not an underrun (LRD011), which the first, 2-step run is
    assert [f.code for f in first] == ["LRD011"] and resumed == []


def test_lightning_checkpoint_trimmed_of_its_scheduler_is_reported(tmp_path):
    (found,) = lrd007(_run(tmp_path, LIGHTNING, "drop"))
    assert "OneCycleLR(total_steps=4)" in found.message
    assert found.location.path.endswith("train.py")  # the user's trainer.fit line, not Lightning's
    assert "trainer.fit(" in (tmp_path / "train.py").read_text().splitlines()[found.location.line - 1]


def test_hf_trainer_save_steps_and_resume_are_silent(hf_run):
    _, first, resumed = hf_run
    assert first == [] and resumed == []  # the resumed schedule is not an underrun either


def test_hf_trainer_subclass_that_saves_only_the_optimizer_is_reported(tmp_path):
    source = HF_TRAINER.replace("Trainer(model=model", """class OptimizerOnly(Trainer):
    def _save_optimizer_and_scheduler(self, output_dir):
        torch.save(self.optimizer.state_dict(), output_dir + "/optimizer.pt")

OptimizerOnly(model=model""")
    (found,) = lrd007(_run_hf(tmp_path, source))
    assert "torch.save stored AdamW's state after 2 steps but not LambdaLR(" in found.message
    line = (tmp_path / "train.py").read_text().splitlines()[found.location.line - 1]
    assert 'torch.save(self.optimizer.state_dict(), output_dir + "/optimizer.pt")' in line


def test_lrdoctor_ckpt_reads_a_lightning_checkpoint(lightning_run, capsys):
    _, ckpt, _, _ = lightning_run
    code = main(["ckpt", "--format", "json", str(ckpt)])
    data = json.loads(capsys.readouterr().out)
    assert code == 0, data
    (audit,) = data["checkpoints"]
    assert audit["format"] == "lightning" and audit["findings"] == []
    parts = {p["kind"]: p for p in audit["contents"]}
    assert parts["model"]["parameters"] == 9
    assert parts["optimizer"]["steps"] == 2 and parts["optimizer"]["where"] == "['optimizer_states'][0]"
    assert parts["scheduler"]["class"] == "OneCycleLR" and parts["scheduler"]["last_epoch"] == 2
    assert parts["scheduler"]["last_lr"] == parts["optimizer"]["lrs"]
    assert audit["counters"] == {"['epoch']": 0, "['global_step']": 2}


def test_lrdoctor_ckpt_reads_a_hf_trainer_folder_and_flags_one_missing_scheduler_pt(hf_run, tmp_path, capsys):
    folder, _, _ = hf_run
    checkpoint = folder / "out" / "checkpoint-2"
    code = main(["ckpt", "--format", "json", str(checkpoint)])
    data = json.loads(capsys.readouterr().out)
    assert code == 0, data
    (audit,) = data["checkpoints"]
    assert audit["format"] == "hf-trainer" and audit["findings"] == []
    parts = {p["kind"]: p for p in audit["contents"]}
    assert parts["optimizer"]["steps"] == 2 and parts["optimizer"]["param_groups"] == 2
    assert parts["scheduler"]["last_epoch"] == 2
    assert parts["model"]["where"] == "model.safetensors" and parts["model"]["parameters"] > 0
    assert audit["counters"]["trainer_state.json['global_step']"] == 2
    assert any("fp16=False" in n for n in audit["notes"])
    # the same checkpoint copied without scheduler.pt: a resume would restart the warm-up
    broken = tmp_path / "checkpoint-2"
    shutil.copytree(checkpoint, broken)
    (broken / "scheduler.pt").unlink()
    assert main(["ckpt", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "(hf-trainer)" in out and "LRD007 [warning] the optimizer state at optimizer.pt (step 2)" in out
