"""The Lightning and Hugging Face callbacks, and watch() around an Accelerate loop, on CPU with
tiny random-init models and generated data (nothing downloaded)."""

from __future__ import annotations

import logging
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import lightning as L  # noqa: E402 - installed by the dev setup; a missing install must fail

import lrdoctor  # noqa: E402


def test_integrations_import_without_any_framework(tmp_path):
    # a child where lightning, pytorch_lightning and transformers cannot be imported
    code = (
        "import sys\n"
        "for name in ('lightning', 'pytorch_lightning', 'transformers', 'torch'):\n"
        "    sys.modules[name] = None\n"
        "import lrdoctor.integrations, lrdoctor.integrations.lightning as lit\n"
        "import lrdoctor.integrations.transformers as hf\n"
        "for mod in (lit, hf):\n"
        "    try:\n"
        "        mod.LRDoctorCallback\n"
        "    except ImportError as exc:\n"
        "        print('ImportError:', exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "needs PyTorch Lightning" in out.stdout and "needs transformers" in out.stdout


# ---- Lightning ------------------------------------------------------------------------------


class MemoryLogger(L.pytorch.loggers.Logger):
    """A trainer logger that keeps what it is given (stands for TensorBoard, W&B, CSV...)."""

    def __init__(self) -> None:
        super().__init__()
        self.metrics: list[tuple[dict, int | None]] = []

    @property
    def name(self) -> str:
        return "memory"

    @property
    def version(self) -> int:
        return 0

    def log_metrics(self, metrics, step=None) -> None:
        self.metrics.append((dict(metrics), step))

    def log_hyperparams(self, params, *args, **kwargs) -> None:
        pass


class OneCycleModel(L.LightningModule):
    def __init__(self, interval: str | None) -> None:
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
        self.interval = interval
        self.losses: list[float] = []

    def training_step(self, batch, i):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.net(x), y)
        self.losses.append(loss.item())
        return loss

    def configure_optimizers(self):
        opt = torch.optim.SGD(self.parameters(), lr=0.05)
        sched = torch.optim.lr_scheduler.OneCycleLR(
            opt, max_lr=0.05, total_steps=self.trainer.estimated_stepping_batches)
        config = {"scheduler": sched}
        if self.interval:
            config["interval"] = self.interval
        return {"optimizer": opt, "lr_scheduler": config}


def _fit(interval: str | None, callbacks: list) -> tuple[OneCycleModel, MemoryLogger]:
    from torch.utils.data import DataLoader, TensorDataset

    torch.manual_seed(0)
    loader = DataLoader(TensorDataset(torch.randn(128, 8), torch.randn(128, 1)), batch_size=16)
    model = OneCycleModel(interval)
    logger = MemoryLogger()
    trainer = L.Trainer(max_epochs=3, logger=logger, callbacks=callbacks, accelerator="cpu",
                        enable_checkpointing=False, enable_progress_bar=False,
                        enable_model_summary=False)
    trainer.fit(model, loader)
    return model, logger


def _lrdoctor_metrics(logger: MemoryLogger) -> dict:
    (metrics,) = [m for m, _ in logger.metrics if "lrdoctor/findings" in m]
    return metrics


def test_lightning_callback_is_silent_on_a_correct_per_step_onecycle(capsys):
    from lrdoctor.integrations.lightning import LRDoctorCallback

    callback = LRDoctorCallback()
    _, logger = _fit("step", [callback])
    assert callback.findings == [], callback.report
    assert "No problems found" in capsys.readouterr().err
    assert _lrdoctor_metrics(logger) == {"lrdoctor/findings": 0.0, "lrdoctor/errors": 0.0,
                                         "lrdoctor/warnings": 0.0}
    assert lrdoctor.runtime.session._active is None  # nothing left installed


def test_lightning_callback_finds_onecycle_stepped_per_epoch(capsys):
    from lrdoctor.integrations.lightning import LRDoctorCallback

    callback = LRDoctorCallback()
    _, logger = _fit(None, [callback])  # Lightning's default interval: 'epoch'
    assert [f.code for f in callback.findings] == ["LRD003"]
    assert "8 optimizer steps per epoch" in callback.findings[0].message
    err = capsys.readouterr().err
    assert err.count("LRD003 [error]") == 1  # once on the console, not twice
    assert _lrdoctor_metrics(logger)["lrdoctor/errors"] == 1.0


def test_lightning_training_is_identical_with_and_without_the_callback():
    from lrdoctor.integrations.lightning import LRDoctorCallback

    plain, _ = _fit("step", [])
    watched, _ = _fit("step", [LRDoctorCallback()])
    assert watched.losses == plain.losses and len(plain.losses) == 24
    for a, b in zip(plain.parameters(), watched.parameters()):
        assert torch.equal(a, b)


def test_lightning_callback_in_strict_mode_stops_the_fit_and_reports(capsys):
    from lrdoctor.integrations.lightning import LRDoctorCallback

    callback = LRDoctorCallback(strict=True)
    with pytest.raises(lrdoctor.ScheduleError):
        _fit(None, [callback])
    assert "LRD003" in capsys.readouterr().err
    assert lrdoctor.runtime.session._active is None


# ---- Hugging Face Trainer --------------------------------------------------------------------

transformers = pytest.importorskip("transformers")


class _Tokens(torch.utils.data.Dataset):
    def __init__(self, n: int) -> None:
        g = torch.Generator().manual_seed(0)
        self.ids = torch.randint(0, 64, (n, 12), generator=g)
        self.labels = torch.randint(0, 2, (n,), generator=g)

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "attention_mask": torch.ones(12, dtype=torch.long),
                "labels": self.labels[i]}


def _hf_train(tmp_path, callbacks: list, optimizers=None, **args):
    from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments

    torch.manual_seed(0)
    config = BertConfig(vocab_size=64, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=16, num_labels=2)
    model = BertForSequenceClassification(config)
    defaults = dict(output_dir=str(tmp_path / "out"), num_train_epochs=2,
                    per_device_train_batch_size=8, learning_rate=1e-3, warmup_steps=2,
                    lr_scheduler_type="linear", logging_steps=1, save_strategy="no",
                    report_to=[], use_cpu=True, disable_tqdm=True, seed=0,
                    dataloader_num_workers=0)
    defaults.update(args)
    trainer = Trainer(model=model, args=TrainingArguments(**defaults), train_dataset=_Tokens(64),
                      callbacks=callbacks,
                      optimizers=optimizers(model) if optimizers else (None, None))
    trainer.train()
    return trainer


def _losses(trainer) -> list[float]:
    return [row["loss"] for row in trainer.state.log_history if "loss" in row]


def test_hf_callback_is_silent_on_linear_warmup(tmp_path, capsys):
    from lrdoctor.integrations.transformers import LRDoctorCallback

    callback = LRDoctorCallback()
    _hf_train(tmp_path, [callback])
    assert callback.findings == [], callback.report
    assert "No problems found" in capsys.readouterr().err
    assert lrdoctor.runtime.session._active is None


def test_hf_callback_finds_a_schedule_sized_for_far_more_steps(tmp_path, capsys, caplog):
    from transformers import get_linear_schedule_with_warmup

    from lrdoctor.integrations.transformers import LRDoctorCallback

    def optimizers(model):
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        # wrong: sized in samples (64 per epoch) instead of optimizer steps (8 per epoch)
        sched = get_linear_schedule_with_warmup(opt, num_warmup_steps=2,
                                                num_training_steps=2 * 64)
        return opt, sched

    callback = LRDoctorCallback()
    with caplog.at_level(logging.INFO, logger="transformers.integrations.lrdoctor"):
        _hf_train(tmp_path, [callback], optimizers=optimizers)
    codes = [f.code for f in callback.findings]
    assert codes == ["LRD011"], callback.report
    assert "step 16 of its 128-step horizon" in callback.findings[0].message
    assert "LRD011" in capsys.readouterr().err
    assert any("LRD011" in r.getMessage() for r in caplog.records)


def test_hf_training_is_identical_with_and_without_the_callback(tmp_path):
    from lrdoctor.integrations.transformers import LRDoctorCallback

    plain = _losses(_hf_train(tmp_path, []))
    watched = _losses(_hf_train(tmp_path, [LRDoctorCallback()]))
    assert watched == plain and len(plain) == 16


# ---- Accelerate: watch() around a prepared loop ----------------------------------------------

ACCELERATE = """
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset

def train(accum, per_epoch_steplr):
    torch.manual_seed(0)
    accelerator = Accelerator(cpu=True, gradient_accumulation_steps=accum)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
    loader = DataLoader(TensorDataset(torch.randn(128, 8), torch.randn(128, 1)), batch_size=8)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    epochs = 3
    if per_epoch_steplr:  # wrong below: an epoch-sized StepLR stepped with every update
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    else:
        sched = torch.optim.lr_scheduler.OneCycleLR(
            opt, max_lr=1e-3, total_steps=epochs * len(loader) // accum)
    model, opt, loader, sched = accelerator.prepare(model, opt, loader, sched)
    losses = []
    for epoch in range(epochs):
        for x, y in loader:
            with accelerator.accumulate(model):
                loss = torch.nn.functional.mse_loss(model(x), y)
                accelerator.backward(loss)
                opt.step()
                sched.step()
                opt.zero_grad()
            losses.append(loss.item())
    return losses, [p.detach().clone() for p in model.parameters()]
"""


@pytest.mark.parametrize("accum", [1, 2])
def test_watch_around_a_correct_accelerate_loop_is_silent_and_changes_nothing(accum):
    ns: dict = {}
    exec(compile(ACCELERATE, "accelerate_loop.py", "exec"), ns)
    plain_losses, plain_params = ns["train"](accum, per_epoch_steplr=False)
    with lrdoctor.watch(echo=lambda text: None) as w:
        losses, params = ns["train"](accum, per_epoch_steplr=False)
    assert w.findings == [], w.report()
    assert losses == plain_losses
    assert all(torch.equal(a, b) for a, b in zip(plain_params, params))
    (opt,) = w.engine.optimizers.values()
    assert opt.attempts == 3 * 16 // accum


def test_watch_around_an_accelerate_loop_finds_an_epoch_scheduler_stepped_per_update():
    ns: dict = {}
    exec(compile(ACCELERATE, "accelerate_loop.py", "exec"), ns)
    with lrdoctor.watch(echo=lambda text: None) as w:
        ns["train"](1, per_epoch_steplr=True)
    assert [f.code for f in w.findings] == ["LRD002"], w.report()
