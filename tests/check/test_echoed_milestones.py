"""A milestone list whose element only repeats the parameter's own word
(`milestones=[self.hparams.scheduler_step]`, documented as "epochs after which the LR
decays") says nothing about batches, like `step_size=args.lr_step`: a Lightning module that
returns it with the default per-epoch interval is fine. A milestone sized from the loader
(`[10 * len(loader)]`) still counts batches."""

from __future__ import annotations

from tests.check.helpers import codes

GAN_MODULE = """
    import torch
    import lightning.pytorch as pl


    class SRGAN(pl.LightningModule):
        def __init__(self, learning_rate=1e-4, scheduler_step=100, steps_per_epoch=500):
            super().__init__()
            self.save_hyperparameters()

        def configure_optimizers(self):
            opt_disc = torch.optim.Adam(self.discriminator.parameters(), lr=self.hparams.learning_rate)
            opt_gen = torch.optim.Adam(self.generator.parameters(), lr=self.hparams.learning_rate)
            sched_disc = torch.optim.lr_scheduler.MultiStepLR(opt_disc, milestones=[{milestone}], gamma=0.1)
            sched_gen = torch.optim.lr_scheduler.MultiStepLR(opt_gen, milestones=[{milestone}], gamma=0.1)
            return [opt_disc, opt_gen], [sched_disc, sched_gen]
"""


def test_milestone_that_echoes_the_parameter_is_not_counted_in_batches() -> None:
    assert "LRD003" not in codes(GAN_MODULE.format(milestone="self.hparams.scheduler_step"))


def test_milestone_sized_in_steps_per_epoch_still_counts_batches() -> None:
    source = GAN_MODULE.format(milestone="100 * self.hparams.steps_per_epoch")
    assert "LRD003" in codes(source)
