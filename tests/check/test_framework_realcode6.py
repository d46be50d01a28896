"""Framework-based training code (issue 7, batch "fresh-2026-12ga" of bench/realcode): the
shapes behind the batch, in our own words.

The batch's dev half (an HF Trainer subclass, mmengine configs, a detectron2 AMPTrainer, a
Lightning module in manual optimization with accumulation, project-own trainers) had no miss
and no false alarm. Its Accelerate program prepares its scheduler, which is right; the same
loop with the scheduler left out of ``prepare()`` was silent, and that is a real bug:

inside ``with accelerator.accumulate(model):`` an Accelerator built with
``gradient_accumulation_steps=N`` makes the prepared optimizer's ``step()`` a no-op on the
micro-batches that do not sync, and steps a prepared scheduler only with it. A scheduler that
did not go through ``prepare()`` steps on every call: N times per update, so a schedule sized
in updates ends after 1/N of training (LRD017). Correct variants stay silent: the scheduler
prepared, its step under ``if accelerator.sync_gradients:``, an Accelerator that does not
accumulate (no ``gradient_accumulation_steps``, or a literal 1), and a schedule sized in
micro-batches on purpose.
"""

from __future__ import annotations

from tests.check.helpers import codes, findings, messages

_LOOP = '''
import torch
from accelerate import Accelerator
from transformers import get_cosine_schedule_with_warmup


def fit(net, batches, n_epochs=3, accum=8):
    accelerator = {accelerator}
    adam = torch.optim.AdamW(net.parameters(), lr=3e-4)
    warmup = get_cosine_schedule_with_warmup(adam, 50, {horizon})
    {prepare}
    for epoch in range(n_epochs):
        for batch in batches:
            with accelerator.accumulate(net):
                loss = net(batch).mean()
                accelerator.backward(loss)
                adam.step()
{step}
                adam.zero_grad()
'''

_ACCUMULATING = "Accelerator(gradient_accumulation_steps=accum)"
_UPDATES = "n_epochs * len(batches) // accum"
_WITHOUT = "net, adam, batches = accelerator.prepare(net, adam, batches)"
_WITH = "net, adam, batches, warmup = accelerator.prepare(net, adam, batches, warmup)"
_PLAIN_STEP = "                warmup.step()"


def _loop(accelerator: str = _ACCUMULATING, horizon: str = _UPDATES, prepare: str = _WITHOUT,
          step: str = _PLAIN_STEP) -> str:
    return _LOOP.format(accelerator=accelerator, horizon=horizon, prepare=prepare, step=step)


def test_unprepared_scheduler_inside_accumulate_is_reported() -> None:
    found = findings(_loop())
    assert found == [("LRD017", 18)]
    text = messages(_loop())[0]
    assert "prepare()" in text and "`accum` micro-batches" in text


def test_prepared_scheduler_inside_accumulate_is_silent() -> None:
    assert codes(_loop(prepare=_WITH)) == []


def test_step_guarded_by_sync_gradients_is_silent() -> None:
    guarded = "                if accelerator.sync_gradients:\n                    warmup.step()"
    assert codes(_loop(step=guarded)) == []


def test_accelerator_without_accumulation_is_silent() -> None:
    assert codes(_loop(accelerator='Accelerator(mixed_precision="bf16")')) == []
    assert codes(_loop(accelerator="Accelerator(gradient_accumulation_steps=1)")) == []


def test_schedule_sized_in_micro_batches_is_silent() -> None:
    assert codes(_loop(horizon="n_epochs * len(batches)")) == []


def test_step_after_the_accumulate_block_is_reported() -> None:
    source = '''
import torch
from accelerate import Accelerator
from transformers import get_linear_schedule_with_warmup


def fit(cfg, net, batches):
    accelerator = Accelerator(gradient_accumulation_steps=cfg.grad_accum)
    adam = torch.optim.AdamW(net.parameters(), lr=cfg.lr)
    decay = get_linear_schedule_with_warmup(adam, cfg.warmup, cfg.total_updates)
    net, adam, batches = accelerator.prepare(net, adam, batches)
    for epoch in range(cfg.epochs):
        for batch in batches:
            with accelerator.accumulate(net):
                accelerator.backward(net(batch).mean())
                adam.step()
                adam.zero_grad()
            decay.step()
'''
    assert findings(source) == [("LRD017", 18)]


_TRAINER = '''
import torch
from accelerate import Accelerator
from diffusers.optimization import get_scheduler


class Finetuner:
    def __init__(self, cfg, net):
        self.cfg = cfg
        self.net = net

    def build(self, batches):
        self.accelerator = Accelerator(gradient_accumulation_steps=self.cfg.accumulation)
        self.opt = torch.optim.AdamW(self.net.parameters(), lr=self.cfg.lr)
        self.lr_sched = get_scheduler("cosine", optimizer=self.opt, num_warmup_steps=10,
                                      num_training_steps=self.cfg.max_updates)
        {prepare}
        return batches

    def one_epoch(self, batches):
        for batch in batches:
            with self.accelerator.accumulate(self.net):
                self.accelerator.backward(self.net(batch).mean())
                self.opt.step()
                self.lr_sched.step()
                self.opt.zero_grad()

    def fit(self, batches):
        batches = self.build(batches)
        for epoch in range(self.cfg.epochs):
            self.one_epoch(batches)
'''


def test_trainer_class_with_unprepared_scheduler_is_reported() -> None:
    prepare = "self.net, self.opt, batches = self.accelerator.prepare(self.net, self.opt, batches)"
    assert findings(_TRAINER.format(prepare=prepare)) == [("LRD017", 25)]


def test_trainer_class_with_prepared_scheduler_is_silent() -> None:
    prepare = ("self.net, self.opt, batches, self.lr_sched = self.accelerator.prepare("
               "self.net, self.opt, batches, self.lr_sched)")
    assert codes(_TRAINER.format(prepare=prepare)) == []


def test_lightning_manual_accumulation_with_scheduler_on_updates_is_silent() -> None:
    # the batch's Lightning program: manual optimization, the scheduler stepped with the
    # optimizer on accumulation boundaries, the scaler unscaled before clipping
    source = '''
import torch
import pytorch_lightning as pl


class LM(pl.LightningModule):
    def __init__(self, accumulate=4, max_steps=10_000):
        super().__init__()
        self.automatic_optimization = False
        self.net = torch.nn.Linear(8, 8)
        self.accumulate = accumulate
        self.max_steps = max_steps

    def training_step(self, batch, batch_idx):
        loss = self.net(batch).mean() / self.accumulate
        self.manual_backward(loss)
        if (batch_idx + 1) % self.accumulate == 0:
            opt = self.optimizers()
            sch = self.lr_schedulers()
            scaler = getattr(self.trainer.precision_plugin, "scaler", None)
            if scaler:
                scaler.unscale_(opt)
            torch.nn.utils.clip_grad_norm_(self.parameters(), 1.0)
            opt.step()
            opt.zero_grad()
            sch.step()

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=6e-4)
        ramp = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, s / 200))
        return {"optimizer": opt, "lr_scheduler": {"scheduler": ramp, "interval": "step"}}
'''
    assert codes(source) == []


def test_detectron2_amp_trainer_run_step_on_cuda_amp_is_only_deprecation() -> None:
    # the batch's detectron2 program: AMPTrainer.run_step overridden with the legacy autocast
    source = '''
import torch
from detectron2.engine import AMPTrainer


class MatteTrainer(AMPTrainer):
    def run_step(self):
        from torch.cuda.amp import autocast
        data = next(self._data_loader_iter)
        with autocast():
            losses = sum(self.model(data).values())
        self.optimizer.zero_grad()
        self.grad_scaler.scale(losses).backward()
        self.grad_scaler.step(self.optimizer)
        self.grad_scaler.update()
'''
    assert set(codes(source)) == {"LRD101"}


def test_scheduler_prepared_where_the_trace_cannot_follow_is_silent() -> None:
    # the scheduler goes through prepare() in a helper the trace does not enter (called on
    # an object it does not know): spelled in a prepare() call of the file, it is not reported
    source = _loop() + '''

def wrap(acc, sched):
    return acc.prepare(sched)


def later(runner, warmup):
    warmup = runner.helper.prepare(warmup)
'''
    assert codes(source) == []
    starred = _loop(prepare="net, adam, batches = accelerator.prepare(*[net, adam, batches])")
    assert codes(starred) == []
