"""Lightning with two optimizers, per-epoch StepLR and a monitored plateau scheduler (correct)."""
import lightning as L
import torch
from torch import nn


class LitGAN(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.generator = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 784))
        self.discriminator = nn.Sequential(nn.Linear(784, 256), nn.LeakyReLU(0.2), nn.Linear(256, 1))

    def training_step(self, batch, batch_idx):
        imgs, _ = batch
        z = torch.randn(imgs.size(0), 64, device=self.device)
        fake = self.generator(z)
        return nn.functional.binary_cross_entropy_with_logits(
            self.discriminator(fake), torch.ones(imgs.size(0), 1, device=self.device))

    def validation_step(self, batch, batch_idx):
        self.log("val_loss", torch.tensor(0.0))

    def configure_optimizers(self):
        opt_g = torch.optim.Adam(self.generator.parameters(), lr=2e-4, betas=(0.5, 0.999))
        opt_d = torch.optim.Adam(self.discriminator.parameters(), lr=2e-4, betas=(0.5, 0.999))
        sched_g = torch.optim.lr_scheduler.StepLR(opt_g, step_size=30, gamma=0.5)
        sched_d = {
            "scheduler": torch.optim.lr_scheduler.ReduceLROnPlateau(opt_d, mode="min", patience=5),
            "monitor": "val_loss",
        }
        return [opt_g, opt_d], [sched_g, sched_d]
