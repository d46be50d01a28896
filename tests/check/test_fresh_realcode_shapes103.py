"""Shapes seen in the fresh-2026-12zzb101 batch (rcnew101, bench/realcode/README.md).

Programs written for these tests; no third-party code.

Framework-driven training code (LightningModule configs and manual optimization, Lightning
Fabric accumulation, Hugging Face Trainer subclasses): lrdoctor found every buggy spelling
below and stayed silent on every correct one before this batch; the tests keep it so. None
of them failed on 3cf787f (they guard, they do not pin a fix).

- a scheduler built in ``__init__`` on ``self.configure_optimizers()``: the method builds a
  new optimizer on every call, Lightning calls it again and steps that one (LRD014);
- OneCycleLR sized with ``estimated_stepping_batches`` at the epoch interval, or stepped by
  hand on ``self.trainer.is_last_batch`` (LRD003), and its twins stepped per update;
- ``"frequency": -1`` (Lightning steps when ``i % frequency == 0``: every update);
- an ``lr_scheduler_step`` override that steps OneCycleLR every update and the others on
  the last batch; a plateau stepped by hand on the last batch with a callback metric;
- manual optimization with accumulation and Fabric's ``no_backward_sync``: the scheduler
  every micro-batch (LRD017) or on the boundary;
- a GAN in manual optimization with one warm-up LambdaLR per network stepped after its
  optimizer; plateau configs every third epoch beside an ``optimizer_step`` override that
  alternates the optimizers; a Trainer subclass that steps its plateau after ``evaluate``.
"""

from __future__ import annotations

from .helpers import codes

STALE_CONFIGURE_CALL = '''
import torch
import lightning as L


class Distiller(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 2)
        # the scheduler wraps an optimizer built by calling configure_optimizers here;
        # Lightning calls configure_optimizers again and steps that second optimizer
        self.sched = torch.optim.lr_scheduler.CosineAnnealingLR(self.configure_optimizers(), T_max=100)

    def configure_optimizers(self):
        return torch.optim.SGD(self.net.parameters(), lr=0.1)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = torch.nn.functional.cross_entropy(self.net(x), y)
        if self.trainer.is_last_batch:
            self.sched.step()
        return loss


trainer = L.Trainer(max_epochs=100)
trainer.fit(Distiller())
'''

STALE_TWIN = '''
import torch
import lightning as L


class Distiller(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 2)

    def configure_optimizers(self):
        opt = torch.optim.SGD(self.net.parameters(), lr=0.1)
        return [opt], [torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=100)]

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.cross_entropy(self.net(x), y)


trainer = L.Trainer(max_epochs=100)
trainer.fit(Distiller())
'''

ONECYCLE_EPOCH_INTERVAL = '''
import torch
import lightning as L


class Model(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 2)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.cross_entropy(self.net(x), y)

    def configure_optimizers(self):
        opt = torch.optim.Adam(self.net.parameters(), lr=1e-3)
        sched = torch.optim.lr_scheduler.OneCycleLR(
            opt, max_lr=1e-2, total_steps=self.trainer.estimated_stepping_batches)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "epoch"}}


L.Trainer(max_epochs=10).fit(Model())
'''

ONECYCLE_STEP_INTERVAL = '''
import torch
import lightning as L


class Model(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 2)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.cross_entropy(self.net(x), y)

    def configure_optimizers(self):
        opt = torch.optim.Adam(self.net.parameters(), lr=1e-3)
        sched = torch.optim.lr_scheduler.OneCycleLR(
            opt, max_lr=1e-2, total_steps=self.trainer.estimated_stepping_batches)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}


L.Trainer(max_epochs=10).fit(Model())
'''

FREQUENCY_MINUS_ONE = '''
import torch
import lightning as L


class Detector(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 2)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.cross_entropy(self.net(x), y)

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.net.parameters(), lr=1e-3)
        sched = torch.optim.lr_scheduler.OneCycleLR(
            opt, max_lr=1e-3, total_steps=self.trainer.estimated_stepping_batches)
        return [{"optimizer": opt,
                 "lr_scheduler": {"scheduler": sched, "interval": "step", "monitor": None, "frequency": -1}}]


L.Trainer(max_epochs=30).fit(Detector())
'''

LR_SCHEDULER_STEP_DISPATCH = '''
import torch
import lightning as L
from torch.optim import lr_scheduler


class Model(L.LightningModule):
    def __init__(self, warmup=0):
        super().__init__()
        self.net = torch.nn.Linear(4, 2)
        self.warmup = warmup

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.cross_entropy(self.net(x), y)

    def configure_optimizers(self):
        opt = torch.optim.Adam(self.net.parameters(), lr=1e-3)
        sched = lr_scheduler.OneCycleLR(opt, max_lr=1e-3, total_steps=self.trainer.estimated_stepping_batches)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}

    def lr_scheduler_step(self, scheduler, metric):
        if not self.warmup or self.trainer.global_step >= self.warmup:
            if isinstance(scheduler, lr_scheduler.OneCycleLR):
                scheduler.step()
            elif self.trainer.is_last_batch:
                if metric is None:
                    scheduler.step()
                else:
                    scheduler.step(metric)


L.Trainer(max_epochs=10).fit(Model())
'''

MANUAL_ONECYCLE_LAST_BATCH = '''
import torch
import lightning as L


class Model(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.automatic_optimization = False
        self.net = torch.nn.Linear(4, 2)

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        sch = self.lr_schedulers()
        x, y = batch
        loss = torch.nn.functional.cross_entropy(self.net(x), y)
        opt.zero_grad()
        self.manual_backward(loss)
        opt.step()
        if self.trainer.is_last_batch:
            sch.step()

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.net.parameters(), lr=1e-3)
        sch = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-2, total_steps=self.trainer.estimated_stepping_batches)
        return [opt], [sch]


L.Trainer(max_epochs=5).fit(Model())
'''

MANUAL_ONECYCLE_EVERY_BATCH = '''
import torch
import lightning as L


class Model(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.automatic_optimization = False
        self.net = torch.nn.Linear(4, 2)

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        sch = self.lr_schedulers()
        x, y = batch
        loss = torch.nn.functional.cross_entropy(self.net(x), y)
        opt.zero_grad()
        self.manual_backward(loss)
        opt.step()
        sch.step()

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.net.parameters(), lr=1e-3)
        sch = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-2, total_steps=self.trainer.estimated_stepping_batches)
        return [opt], [sch]


L.Trainer(max_epochs=5).fit(Model())
'''

MANUAL_ACCUM_STEP_EVERY_BATCH = '''
import torch
import lightning as L


class Model(L.LightningModule):
    def __init__(self, accum=4):
        super().__init__()
        self.automatic_optimization = False
        self.net = torch.nn.Linear(4, 2)
        self.accum = accum

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        sch = self.lr_schedulers()
        x, y = batch
        loss = torch.nn.functional.cross_entropy(self.net(x), y) / self.accum
        self.manual_backward(loss)
        if (batch_idx + 1) % self.accum == 0:
            opt.step()
            opt.zero_grad()
        sch.step()

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.net.parameters(), lr=1e-3)
        sch = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3, total_steps=self.trainer.estimated_stepping_batches)
        return [opt], [sch]


L.Trainer(max_epochs=5).fit(Model())
'''

MANUAL_ACCUM_STEP_ON_BOUNDARY = '''
import torch
import lightning as L


class Model(L.LightningModule):
    def __init__(self, accum=4):
        super().__init__()
        self.automatic_optimization = False
        self.net = torch.nn.Linear(4, 2)
        self.accum = accum

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        sch = self.lr_schedulers()
        x, y = batch
        loss = torch.nn.functional.cross_entropy(self.net(x), y) / self.accum
        self.manual_backward(loss)
        if (batch_idx + 1) % self.accum == 0 or self.trainer.is_last_batch:
            opt.step()
            opt.zero_grad()
            sch.step()

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.net.parameters(), lr=1e-3)
        sch = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=1000)
        return [opt], [sch]


L.Trainer(max_epochs=5).fit(Model())
'''

MANUAL_PLATEAU_LAST_BATCH = '''
import torch
import lightning as L


class Model(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.automatic_optimization = False
        self.net = torch.nn.Linear(4, 2)

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        sch = self.lr_schedulers()
        x, y = batch
        loss = torch.nn.functional.cross_entropy(self.net(x), y)
        opt.zero_grad()
        self.manual_backward(loss)
        opt.step()
        if self.trainer.is_last_batch and (self.trainer.current_epoch + 1) % 2 == 0:
            sch.step(self.trainer.callback_metrics["val_loss"])

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_loss", torch.nn.functional.cross_entropy(self.net(x), y))

    def configure_optimizers(self):
        opt = torch.optim.SGD(self.net.parameters(), lr=0.1)
        return [opt], [torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=3)]


L.Trainer(max_epochs=40).fit(Model())
'''

MANUAL_GAN_TWO_WARMUPS = '''
import torch
import lightning as L


def warm_then_decay(optimizer, warm=1000, decay=500000, peak=1e-4, floor=1e-5):
    def factor(step):
        if step < warm:
            return floor + (peak - floor) * (step / warm) ** 2
        if step < warm + decay:
            return peak - (peak - floor) * (step - warm) / decay
        return floor
    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)


class Codec(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.automatic_optimization = False
        self.gen = torch.nn.Linear(8, 8)
        self.disc = torch.nn.Linear(8, 1)

    def training_step(self, batch, batch_idx):
        g_opt, d_opt = self.optimizers()
        g_sch, d_sch = self.lr_schedulers()
        fake = self.gen(batch)
        d_loss = self.disc(fake.detach()).mean() - self.disc(batch).mean()
        d_opt.zero_grad()
        self.manual_backward(d_loss)
        self.clip_gradients(d_opt, gradient_clip_val=1.0, gradient_clip_algorithm="norm")
        d_opt.step()
        d_sch.step()
        g_loss = -self.disc(fake).mean()
        g_opt.zero_grad()
        self.manual_backward(g_loss)
        self.clip_gradients(g_opt, gradient_clip_val=1.0, gradient_clip_algorithm="norm")
        g_opt.step()
        g_sch.step()

    def configure_optimizers(self):
        g_opt = torch.optim.AdamW(self.gen.parameters(), lr=1.0, betas=(0.8, 0.9))
        d_opt = torch.optim.AdamW(self.disc.parameters(), lr=1.0, betas=(0.8, 0.9))
        return [g_opt, d_opt], [warm_then_decay(g_opt), warm_then_decay(d_opt)]


L.Trainer(max_steps=1_200_000, precision="16-mixed").fit(Codec())
'''

PLATEAU_FREQ3_ALTERNATING = '''
import torch
import pytorch_lightning as pl


class TwoStage(pl.LightningModule):
    def __init__(self, switch_epoch=10):
        super().__init__()
        self.first = torch.nn.Linear(4, 4)
        self.second = torch.nn.Linear(4, 2)
        self.switch_epoch = switch_epoch

    def training_step(self, batch, batch_idx, optimizer_idx):
        x, y = batch
        return torch.nn.functional.cross_entropy(self.second(self.first(x)), y)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.cross_entropy(self.second(self.first(x)), y)

    def validation_epoch_end(self, outputs):
        self.log("val_loss", torch.stack(outputs).mean())

    def optimizer_step(self, epoch, batch_idx, optimizer, optimizer_idx, optimizer_closure,
                       on_tpu=False, using_native_amp=False, using_lbfgs=False):
        if (epoch < self.switch_epoch) == (optimizer_idx == 0):
            optimizer.step(closure=optimizer_closure)
        else:
            optimizer_closure()

    def configure_optimizers(self):
        opts = [torch.optim.Adam(self.first.parameters(), lr=1e-3),
                torch.optim.Adam(self.second.parameters(), lr=1e-3)]
        scheds = [{"scheduler": torch.optim.lr_scheduler.ReduceLROnPlateau(o, mode="min", factor=0.5),
                   "interval": "epoch", "frequency": 3, "monitor": "val_loss"} for o in opts]
        return opts, scheds


pl.Trainer(max_epochs=60, gradient_clip_val=1.0).fit(TwoStage())
'''

FABRIC_ACCUM_STEP_EVERY_BATCH = '''
import torch
import lightning as L

fabric = L.Fabric(precision="bf16-mixed")
fabric.launch()
model = torch.nn.Linear(4, 2)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
model, optimizer = fabric.setup(model, optimizer)
data = [(torch.randn(8, 4), torch.randint(0, 2, (8,))) for _ in range(64)]
loader = fabric.setup_dataloaders(torch.utils.data.DataLoader(data, batch_size=None))
k = 4
epochs = 10
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs * len(loader) // k)
for epoch in range(epochs):
    for i, (x, y) in enumerate(loader):
        is_accumulating = (i + 1) % k != 0
        with fabric.no_backward_sync(model, enabled=is_accumulating):
            loss = torch.nn.functional.cross_entropy(model(x), y) / k
            fabric.backward(loss)
        if not is_accumulating:
            optimizer.step()
            optimizer.zero_grad()
        scheduler.step()
'''

FABRIC_ACCUM_STEP_ON_BOUNDARY = '''
import torch
import lightning as L

fabric = L.Fabric(precision="bf16-mixed")
fabric.launch()
model = torch.nn.Linear(4, 2)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
model, optimizer = fabric.setup(model, optimizer)
data = [(torch.randn(8, 4), torch.randint(0, 2, (8,))) for _ in range(64)]
loader = fabric.setup_dataloaders(torch.utils.data.DataLoader(data, batch_size=None))
k = 4
epochs = 10
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs * len(loader) // k)
for epoch in range(epochs):
    for i, (x, y) in enumerate(loader):
        is_accumulating = (i + 1) % k != 0
        with fabric.no_backward_sync(model, enabled=is_accumulating):
            loss = torch.nn.functional.cross_entropy(model(x), y) / k
            fabric.backward(loss)
        if not is_accumulating:
            optimizer.step()
            optimizer.zero_grad()
            scheduler.step()
    state = {"model": model, "optimizer": optimizer, "scheduler": scheduler, "epoch": epoch}
    fabric.save("ckpt.pt", state)
'''

HF_PLATEAU_AFTER_EVAL = '''
import torch
from transformers import Trainer, TrainingArguments


class ExtraLossTrainer(Trainer):
    def _maybe_log_save_evaluate(self, tr_loss, model, trial, epoch, ignore_keys_for_eval):
        metrics = None
        if self.control.should_evaluate:
            metrics = self.evaluate(ignore_keys=ignore_keys_for_eval)
            if isinstance(self.lr_scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau):
                key = self.args.metric_for_best_model
                if not key.startswith("eval_"):
                    key = f"eval_{key}"
                self.lr_scheduler.step(metrics[key])
        if self.control.should_save:
            self._save_checkpoint(model, trial, metrics=metrics)


def run(model, train_ds, eval_ds):
    args = TrainingArguments("out", num_train_epochs=3, eval_strategy="epoch",
                             save_strategy="epoch", metric_for_best_model="loss")
    ExtraLossTrainer(model=model, args=args, train_dataset=train_ds, eval_dataset=eval_ds).train()
'''


def test_scheduler_on_a_second_configure_optimizers_call_is_stale() -> None:
    """the scheduler wraps the optimizer of its own configure_optimizers() call; Lightning calls the method again and steps that other optimizer"""
    assert codes(STALE_CONFIGURE_CALL) == ['LRD014']


def test_scheduler_returned_with_its_optimizer_is_silent() -> None:
    assert codes(STALE_TWIN) == []


def test_onecycle_over_stepping_batches_at_epoch_interval() -> None:
    assert codes(ONECYCLE_EPOCH_INTERVAL) == ['LRD003']


def test_onecycle_over_stepping_batches_at_step_interval_is_silent() -> None:
    assert codes(ONECYCLE_STEP_INTERVAL) == []


def test_frequency_minus_one_steps_every_update_and_is_silent() -> None:
    """Lightning steps when `i % frequency == 0`, true for every i when frequency is -1"""
    assert codes(FREQUENCY_MINUS_ONE) == []


def test_lr_scheduler_step_override_dispatching_by_class_is_silent() -> None:
    assert codes(LR_SCHEDULER_STEP_DISPATCH) == []


def test_manual_onecycle_stepped_on_the_last_batch() -> None:
    assert codes(MANUAL_ONECYCLE_LAST_BATCH) == ['LRD003']


def test_manual_onecycle_stepped_every_batch_is_silent() -> None:
    assert codes(MANUAL_ONECYCLE_EVERY_BATCH) == []


def test_manual_accumulation_scheduler_every_micro_batch() -> None:
    assert codes(MANUAL_ACCUM_STEP_EVERY_BATCH) == ['LRD017']


def test_manual_accumulation_scheduler_on_the_boundary_is_silent() -> None:
    assert codes(MANUAL_ACCUM_STEP_ON_BOUNDARY) == []


def test_manual_plateau_on_last_batch_with_callback_metric_is_silent() -> None:
    assert codes(MANUAL_PLATEAU_LAST_BATCH) == []


def test_manual_gan_with_a_warm_up_per_network_is_silent() -> None:
    """each LambdaLR steps right after its own optimizer, once per batch; under 16-mixed a skipped step is LRD005 territory, left uncertain in the batch and not reported"""
    assert codes(MANUAL_GAN_TWO_WARMUPS) == []


def test_plateau_every_third_epoch_with_alternating_optimizer_step_is_silent() -> None:
    assert codes(PLATEAU_FREQ3_ALTERNATING) == []


def test_fabric_no_backward_sync_scheduler_every_micro_batch() -> None:
    assert codes(FABRIC_ACCUM_STEP_EVERY_BATCH) == ['LRD017']


def test_fabric_no_backward_sync_scheduler_on_the_boundary_is_silent() -> None:
    assert codes(FABRIC_ACCUM_STEP_ON_BOUNDARY) == []


def test_hf_trainer_override_stepping_plateau_after_evaluate_is_silent() -> None:
    assert codes(HF_PLATEAU_AFTER_EVAL) == []
