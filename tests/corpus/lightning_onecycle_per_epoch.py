"""A Lightning module returning OneCycleLR without "interval": "step" (bug: LRD003)."""
import pytorch_lightning as pl
import torch
from torch import nn


class LitRegressor(pl.LightningModule):
    def __init__(self, steps_per_epoch: int, epochs: int = 20):
        super().__init__()
        self.steps_per_epoch = steps_per_epoch
        self.epochs = epochs
        self.model = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 1))

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.mse_loss(self.model(x), y)
        self.log("loss", loss)
        return loss

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=1e-3)
        sched = torch.optim.lr_scheduler.OneCycleLR(
            opt, max_lr=1e-2, epochs=self.epochs, steps_per_epoch=self.steps_per_epoch
        )
        return [opt], [sched]  # expect: LRD003
