"""`lrdoctor run` on a real PyTorch Lightning training script (Lightning drives the loops,
the sanity-check validation pass and the scheduler stepping; nothing here is simulated)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("torch")
import lightning  # noqa: E402,F401 - installed by the dev setup; a missing install must fail

SCRIPT = """
import sys
import torch
import lightning as L
from torch.utils.data import DataLoader, TensorDataset

per_step = "--per-step" in sys.argv

class Model(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))

    def training_step(self, batch, i):
        x, y = batch
        return torch.nn.functional.mse_loss(self.net(x), y)

    def validation_step(self, batch, i):
        x, y = batch
        self.log("val_loss", torch.nn.functional.mse_loss(self.net(x), y))

    def configure_optimizers(self):
        opt = torch.optim.SGD(self.parameters(), lr=0.05)
        sched = torch.optim.lr_scheduler.OneCycleLR(
            opt, max_lr=0.05, total_steps=self.trainer.estimated_stepping_batches)
        config = {"scheduler": sched}
        if per_step:
            config["interval"] = "step"
        return {"optimizer": opt, "lr_scheduler": config}

torch.manual_seed(0)
train = DataLoader(TensorDataset(torch.randn(512, 16), torch.randn(512, 1)), batch_size=32)
val = DataLoader(TensorDataset(torch.randn(128, 16), torch.randn(128, 1)), batch_size=32)
trainer = L.Trainer(max_epochs=3, logger=False, enable_checkpointing=False,
                    enable_progress_bar=False, enable_model_summary=False)
trainer.fit(Model(), train, val)
"""


@pytest.mark.parametrize("per_step", [False, True])
def test_lightning_onecycle_without_interval_step_is_reported(tmp_path, per_step):
    script = tmp_path / "lit.py"
    script.write_text(textwrap.dedent(SCRIPT))
    out = tmp_path / "report.json"
    args = [sys.executable, "-m", "lrdoctor", "run", "--json", str(out), str(script)]
    if per_step:
        args.append("--per-step")
    env = {**os.environ, "NO_COLOR": "1"}
    result = subprocess.run(args, capture_output=True, text=True, timeout=300, env=env,
                            cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(out.read_text())
    assert "internal error" not in result.stderr
    assert report["epochs"] == 3
    (sched,) = report["schedulers"]
    if per_step:
        assert report["findings"] == []
        assert sched["steps_per_epoch"] == [16, 16, 16]
    else:
        assert [f["code"] for f in report["findings"]] == ["LRD003"]
        assert sched["steps_per_epoch"] == [1, 1, 1]
        assert "16 optimizer steps per epoch" in report["findings"][0]["message"]
