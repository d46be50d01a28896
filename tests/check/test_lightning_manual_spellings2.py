"""Lightning's manual optimization (`self.automatic_optimization = False`): the module steps
what `self.optimizers()` / `self.lr_schedulers()` hand back, i.e. what configure_optimizers
returned, with `training_step` run once per batch of every epoch and the epoch-end hooks once
per epoch. An epoch-sized scheduler stepped in `training_step` is LRD002; under
`if self.trainer.is_last_batch:` or in `on_train_epoch_end` it is fine; a per-batch one
stepped with the updates of an accumulation guard is fine, outside it LRD017."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

V: dict[str, tuple[list[str], str]] = {}
_PLM = '''
import torch
import lightning as L

class Model(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.automatic_optimization = False
        self.net = torch.nn.Linear(4, 1)

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        sch = self.lr_schedulers()
        loss = self.net(batch).sum()
        opt.zero_grad()
        self.manual_backward(loss)
        opt.step()
{step}
        return loss

    def configure_optimizers(self):
        optimizer = torch.optim.SGD(self.parameters(), lr=0.1)
        {sched}
'''
_PL_EPOCH = 'return [optimizer], [torch.optim.lr_scheduler.StepLR(optimizer, step_size=10)]'
_PL_EPOCH_DICT = '''scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=self.trainer.max_epochs)
        return {"optimizer": optimizer, "lr_scheduler": scheduler}'''
_PL_BATCH = '''scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=self.trainer.estimated_stepping_batches)
        return {"optimizer": optimizer, "lr_scheduler": {"scheduler": scheduler, "interval": "step"}}'''
for sn, s in (("steplr", _PL_EPOCH), ("cosine_dict", _PL_EPOCH_DICT)):
    V[f"lightning_manual_{sn}_stepped_on_last_batch_correct"] = ([], _PLM.format(sched=s, step='''        if self.trainer.is_last_batch:
            sch.step()'''))
    V[f"lightning_manual_{sn}_stepped_on_last_batch_and_index_correct"] = ([], _PLM.format(sched=s, step='''        if self.trainer.is_last_batch and (self.trainer.current_epoch + 1) % 1 == 0:
            sch.step()'''))
    V[f"lightning_manual_{sn}_stepped_every_batch_buggy"] = (["LRD002"], _PLM.format(sched=s, step='''        sch.step()'''))
    V[f"lightning_manual_{sn}_on_train_epoch_end_correct"] = ([], _PLM.format(sched=s, step="") + '''
    def on_train_epoch_end(self):
        sch = self.lr_schedulers()
        sch.step()
''')
V["lightning_manual_onecycle_every_batch_correct"] = ([], _PLM.format(sched=_PL_BATCH, step="        sch.step()"))
V["lightning_manual_steplr_accumulated_every_n_correct"] = ([], _PLM.format(sched=_PL_EPOCH, step='''        if (batch_idx + 1) % 2 == 0:
            opt.step()
        if self.trainer.is_last_batch:
            sch.step()''').replace("        opt.step()\n        if (batch_idx", "        if (batch_idx"))
V["lightning_manual_plateau_on_validation_epoch_end_correct"] = ([], _PLM.format(sched='''scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min")
        return {"optimizer": optimizer, "lr_scheduler": {"scheduler": scheduler, "monitor": "val_loss"}}''', step="") + '''
    def on_validation_epoch_end(self):
        sch = self.lr_schedulers()
        sch.step(self.trainer.callback_metrics["val_loss"])
''')
V["lightning_manual_gan_two_schedulers_on_epoch_end_correct"] = ([], '''
import torch
import lightning.pytorch as pl

class GAN(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.automatic_optimization = False
        self.g = torch.nn.Linear(4, 4)
        self.d = torch.nn.Linear(4, 1)

    def training_step(self, batch, batch_idx):
        opt_g, opt_d = self.optimizers()
        d_loss = self.d(batch).mean()
        opt_d.zero_grad()
        self.manual_backward(d_loss)
        opt_d.step()
        g_loss = -self.d(self.g(batch)).mean()
        opt_g.zero_grad()
        self.manual_backward(g_loss)
        opt_g.step()

    def on_train_epoch_end(self):
        sch_g, sch_d = self.lr_schedulers()
        sch_g.step()
        sch_d.step()

    def configure_optimizers(self):
        opt_g = torch.optim.Adam(self.g.parameters(), lr=2e-4, betas=(0.5, 0.999))
        opt_d = torch.optim.Adam(self.d.parameters(), lr=2e-4, betas=(0.5, 0.999))
        sch_g = torch.optim.lr_scheduler.StepLR(opt_g, step_size=20, gamma=0.5)
        sch_d = torch.optim.lr_scheduler.StepLR(opt_d, step_size=20, gamma=0.5)
        return [opt_g, opt_d], [sch_g, sch_d]
''')
V["lightning_manual_gan_two_schedulers_every_batch_buggy"] = (["LRD002", "LRD002"], V["lightning_manual_gan_two_schedulers_on_epoch_end_correct"][1].replace('''        opt_g.step()
''', '''        opt_g.step()
        sch_g, sch_d = self.lr_schedulers()
        sch_g.step()
        sch_d.step()
''').replace('''    def on_train_epoch_end(self):
        sch_g, sch_d = self.lr_schedulers()
        sch_g.step()
        sch_d.step()
''', ''))
V["lightning_manual_onecycle_with_accumulation_correct"] = ([], _PLM.format(sched=_PL_BATCH, step="").replace('''        opt.zero_grad()
        self.manual_backward(loss)
        opt.step()
''', '''        self.manual_backward(loss / 4)
        if (batch_idx + 1) % 4 == 0:
            opt.step()
            opt.zero_grad()
            sch.step()
'''))
V["lightning_manual_onecycle_stepped_every_micro_batch_buggy"] = (["LRD017"], _PLM.format(sched=_PL_BATCH, step="").replace('''        opt.zero_grad()
        self.manual_backward(loss)
        opt.step()
''', '''        self.manual_backward(loss / 4)
        if (batch_idx + 1) % 4 == 0:
            opt.step()
            opt.zero_grad()
        sch.step()
'''))
V["lightning_manual_plateau_isinstance_on_epoch_end_correct"] = ([], _PLM.format(sched='''scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", patience=2)
        return [optimizer], [scheduler]''', step="") + '''
    def on_train_epoch_end(self):
        sch = self.lr_schedulers()
        if isinstance(sch, torch.optim.lr_scheduler.ReduceLROnPlateau):
            sch.step(self.trainer.callback_metrics["val_loss"])
''')
V["lightning_manual_scheduler_first_in_step_buggy"] = (["LRD001"], _PLM.format(sched=_PL_BATCH, step="").replace('''        opt.zero_grad()
        self.manual_backward(loss)
        opt.step()
''', '''        sch.step()
        opt.zero_grad()
        self.manual_backward(loss)
        opt.step()
'''))


@pytest.mark.parametrize("situation", sorted(n for n in V if n.endswith("_correct")))
def test_correct_manual_optimization_is_silent(situation: str) -> None:
    expected, source = V[situation]
    assert codes(source) == expected


@pytest.mark.parametrize("situation", sorted(n for n in V if n.endswith("_buggy")))
def test_manual_optimization_bug_is_reported(situation: str) -> None:
    expected, source = V[situation]
    assert codes(source) == expected
