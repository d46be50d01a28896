"""Second round of spellings (issue 7): the framework families real projects use, each written
the way their users write it, correct (silent) and buggy (reported). Accelerate's prepared
scheduler (it steps only after real updates, so fp16 needs no LRD005), Hugging Face Trainer
subclasses, DeepSpeed engines (the engine steps the scheduler it was given), timm's
`step_update`/`step(epoch + 1)`, `transformers.get_scheduler`, SWALR hand-overs, SequentialLR
and ChainedScheduler, warm-up wrappers, ReduceLROnPlateau in "max" mode, and a flag-switched
GradScaler built in `__init__` with unscale-then-clip and non-finite-loss guards."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

V: dict[str, tuple[list[str], str]] = {}

# ---------------- accelerate ----------------
_ACC = '''
import torch
from accelerate import Accelerator
from transformers import get_linear_schedule_with_warmup, get_scheduler

def main(args, model, train_dataloader):
    accelerator = Accelerator({acc_args})
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    num_update_steps_per_epoch = len(train_dataloader) // args.gradient_accumulation_steps
    max_train_steps = args.num_train_epochs * num_update_steps_per_epoch
    {sched}
    model, optimizer, train_dataloader, lr_scheduler = accelerator.prepare(
        model, optimizer, train_dataloader, lr_scheduler)
    for epoch in range(args.num_train_epochs):
        model.train()
        for step, batch in enumerate(train_dataloader):
{body}
'''
_SCHED_STEPS = 'lr_scheduler = get_scheduler(name=args.lr_scheduler_type, optimizer=optimizer, num_warmup_steps=args.num_warmup_steps, num_training_steps=max_train_steps)'
_SCHED_LINEAR = 'lr_scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=100, num_training_steps=max_train_steps)'
_SCHED_STEPLR = 'lr_scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30, gamma=0.1)'
_ACC_BODIES = {
    "accumulate_context": '''            with accelerator.accumulate(model):
                loss = model(**batch).loss
                accelerator.backward(loss)
                optimizer.step()
                lr_scheduler.step()
                optimizer.zero_grad()''',
    "sync_gradients_clip": '''            with accelerator.accumulate(model):
                outputs = model(**batch)
                loss = outputs.loss
                accelerator.backward(loss)
                if accelerator.sync_gradients:
                    accelerator.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                lr_scheduler.step()
                optimizer.zero_grad()''',
    "manual_accumulation": '''            loss = model(**batch).loss
            loss = loss / args.gradient_accumulation_steps
            accelerator.backward(loss)
            if step % args.gradient_accumulation_steps == 0 or step == len(train_dataloader) - 1:
                optimizer.step()
                lr_scheduler.step()
                optimizer.zero_grad()''',
    "autocast_context": '''            with accelerator.autocast():
                loss = model(**batch).loss
            accelerator.backward(loss)
            optimizer.step()
            lr_scheduler.step()
            optimizer.zero_grad()''',
}
for acc_args in ('mixed_precision="fp16"', 'gradient_accumulation_steps=args.gradient_accumulation_steps, mixed_precision=args.mixed_precision'):
    tag = "fp16" if "fp16" in acc_args else "flag"
    for b, body in _ACC_BODIES.items():
        for sname, s in (("get_scheduler", _SCHED_STEPS), ("linear_warmup", _SCHED_LINEAR)):
            V[f"accelerate_{tag}_{b}_{sname}_correct"] = ([], _ACC.format(acc_args=acc_args, sched=s, body=body))
    V[f"accelerate_{tag}_steplr_per_batch_buggy"] = (["LRD002"], _ACC.format(acc_args=acc_args, sched=_SCHED_STEPLR, body=_ACC_BODIES["accumulate_context"]))
V["accelerate_linear_per_epoch_buggy"] = (["LRD003"], _ACC.format(acc_args="", sched=_SCHED_LINEAR, body='''            with accelerator.accumulate(model):
                loss = model(**batch).loss
                accelerator.backward(loss)
                optimizer.step()
                optimizer.zero_grad()
        lr_scheduler.step()'''))
V["accelerate_save_state_correct"] = ([], _ACC.format(acc_args="", sched=_SCHED_LINEAR, body=_ACC_BODIES["accumulate_context"] + '''
        accelerator.save_state(f"epoch_{epoch}")
    if args.resume_from_checkpoint:
        accelerator.load_state(args.resume_from_checkpoint)'''))
V["accelerate_save_model_only_correct"] = ([], _ACC.format(acc_args="", sched=_SCHED_LINEAR, body=_ACC_BODIES["accumulate_context"] + '''
        accelerator.wait_for_everyone()
        unwrapped = accelerator.unwrap_model(model)
        accelerator.save(unwrapped.state_dict(), "model.pt")'''))

# ---------------- HF Trainer subclasses ----------------
V["hf_trainer_compute_loss_override_correct"] = ([], '''
import torch
from transformers import Trainer, TrainingArguments

class WeightedTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        loss = torch.nn.functional.cross_entropy(outputs.logits, labels)
        return (loss, outputs) if return_outputs else loss

def main(model, train_ds):
    args = TrainingArguments("out", fp16=True, learning_rate=2e-5, lr_scheduler_type="cosine", warmup_ratio=0.1)
    trainer = WeightedTrainer(model=model, args=args, train_dataset=train_ds)
    trainer.train()
''')
V["hf_trainer_create_optimizer_and_scheduler_correct"] = ([], '''
import torch
from transformers import Trainer, get_linear_schedule_with_warmup

class MyTrainer(Trainer):
    def create_optimizer_and_scheduler(self, num_training_steps):
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=self.args.learning_rate)
        self.lr_scheduler = get_linear_schedule_with_warmup(
            self.optimizer, num_warmup_steps=self.args.warmup_steps, num_training_steps=num_training_steps)
''')
V["hf_trainer_create_scheduler_override_correct"] = ([], '''
import torch
from transformers import Trainer, get_cosine_schedule_with_warmup

class MyTrainer(Trainer):
    def create_scheduler(self, num_training_steps, optimizer=None):
        if self.lr_scheduler is None:
            self.lr_scheduler = get_cosine_schedule_with_warmup(
                self.optimizer if optimizer is None else optimizer,
                num_warmup_steps=self.args.get_warmup_steps(num_training_steps),
                num_training_steps=num_training_steps)
        return self.lr_scheduler
''')
V["hf_trainer_optimizers_tuple_correct"] = ([], '''
import torch
from transformers import Trainer, TrainingArguments, get_cosine_schedule_with_warmup

def main(model, train_ds, epochs, steps_per_epoch):
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-5, eps=1e-8)
    scheduler = get_cosine_schedule_with_warmup(optimizer, 100, epochs * steps_per_epoch)
    args = TrainingArguments("out", fp16=True, num_train_epochs=epochs)
    trainer = Trainer(model=model, args=args, train_dataset=train_ds, optimizers=(optimizer, scheduler))
    trainer.train(resume_from_checkpoint=True)
''')

# ---------------- DeepSpeed ----------------
_DS = '''
import torch
import deepspeed

def train(args, model, train_loader):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-4, total_steps=args.epochs * len(train_loader))
    model_engine, optimizer, _, lr_scheduler = deepspeed.initialize(
        args=args, model=model, optimizer=optimizer, lr_scheduler=scheduler, config=args.deepspeed_config)
    for epoch in range(args.epochs):
        for step, batch in enumerate(train_loader):
            loss = model_engine(batch)
            model_engine.backward(loss)
            model_engine.step()
{extra}
'''
V["deepspeed_engine_owns_scheduler_correct"] = ([], _DS.format(extra=""))
V["deepspeed_engine_save_checkpoint_correct"] = ([], _DS.format(extra='''        model_engine.save_checkpoint(args.save_dir, tag=f"epoch{epoch}")
    _, client_state = model_engine.load_checkpoint(args.load_dir)'''))
V["deepspeed_config_scheduler_correct"] = ([], '''
import deepspeed

def train(args, model, train_loader):
    model_engine, optimizer, _, lr_scheduler = deepspeed.initialize(
        args=args, model=model, model_parameters=model.parameters())
    for epoch in range(args.epochs):
        for batch in train_loader:
            loss = model_engine(batch)
            model_engine.backward(loss)
            model_engine.step()
        print(lr_scheduler.get_lr())
''')

# ---------------- timm ----------------
V["timm_step_update_and_epoch_step_correct"] = ([], '''
import torch
from timm.scheduler import create_scheduler

def train(args, model, loader_train, validate):
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    lr_scheduler, num_epochs = create_scheduler(args, optimizer)
    start_epoch = 0
    if lr_scheduler is not None and start_epoch > 0:
        lr_scheduler.step(start_epoch)
    for epoch in range(start_epoch, num_epochs):
        num_updates = epoch * len(loader_train)
        for batch_idx, (input, target) in enumerate(loader_train):
            loss = torch.nn.functional.cross_entropy(model(input), target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            num_updates += 1
            lr_scheduler.step_update(num_updates=num_updates)
        eval_metrics = validate(model)
        if lr_scheduler is not None:
            lr_scheduler.step(epoch + 1, eval_metrics["top1"])
''')
V["timm_cosine_epoch_t_initial_correct"] = ([], '''
import torch
from timm.scheduler import CosineLRScheduler

def train(model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = CosineLRScheduler(optimizer, t_initial=epochs, lr_min=1e-6, warmup_t=5, warmup_lr_init=1e-6)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        scheduler.step(epoch + 1)
''')
V["timm_cosine_steps_t_in_epochs_false_correct"] = ([], '''
import torch
from timm.scheduler.cosine_lr import CosineLRScheduler

def train(model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    n_iter = len(loader)
    scheduler = CosineLRScheduler(optimizer, t_initial=epochs * n_iter, warmup_t=500, t_in_epochs=False)
    for epoch in range(epochs):
        for idx, (x, y) in enumerate(loader):
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
            scheduler.step_update(epoch * n_iter + idx)
''')

# ---------------- transformers.get_scheduler ----------------
_GS = '''
import torch
import transformers

def train(model, loader, args):
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    total = len(loader) * args.epochs
    scheduler = transformers.get_scheduler({call})
    for epoch in range(args.epochs):
        for batch in loader:
            model(**batch).loss.backward()
            optimizer.step()
            optimizer.zero_grad()
{batch}
{epoch}
'''
for cname, call in {
    "positional": '"cosine", optimizer, num_warmup_steps=100, num_training_steps=total',
    "keywords": 'name=args.scheduler, optimizer=optimizer, num_warmup_steps=args.warmup, num_training_steps=total',
    "schedulertype": 'transformers.SchedulerType.LINEAR, optimizer, 0, total',
}.items():
    V[f"get_scheduler_{cname}_per_batch_correct"] = ([], _GS.format(call=call, batch="            scheduler.step()", epoch=""))
    V[f"get_scheduler_{cname}_per_epoch_buggy"] = (["LRD003"], _GS.format(call=call, batch="", epoch="        scheduler.step()"))

# ---------------- SWALR ----------------
_SWA = '''
import torch
from torch.optim.swa_utils import AveragedModel, SWALR, update_bn

def train(model, loader, epochs=100, swa_start=75):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    swa_model = AveragedModel(model)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    swa_scheduler = SWALR(optimizer, swa_lr=0.05, anneal_epochs=5)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
{tail}
    update_bn(loader, swa_model)
'''
V["swalr_if_else_handover_correct"] = ([], _SWA.format(tail='''        if epoch > swa_start:
            swa_model.update_parameters(model)
            swa_scheduler.step()
        else:
            scheduler.step()'''))
V["swalr_if_ge_then_separate_if_lt_correct"] = ([], _SWA.format(tail='''        if epoch >= swa_start:
            swa_model.update_parameters(model)
            swa_scheduler.step()
        if epoch < swa_start:
            scheduler.step()'''))
V["swalr_use_swa_flag_correct"] = ([], _SWA.format(tail='''        use_swa = epoch >= swa_start
        if use_swa:
            swa_model.update_parameters(model)
            swa_scheduler.step()
        else:
            scheduler.step()'''))

# ---------------- SequentialLR / ChainedScheduler ----------------
_SEQ = '''
import torch
from torch.optim.lr_scheduler import SequentialLR, ChainedScheduler, LinearLR, CosineAnnealingLR, ExponentialLR

def train(model, loader, epochs, warmup_epochs=5, warmup_steps=500):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    total_steps = epochs * len(loader)
    {sched}
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
{batch}
{epoch}
'''
_SEQ_EPOCHS = {
    "sequential_epochs": 'scheduler = SequentialLR(optimizer, schedulers=[LinearLR(optimizer, start_factor=0.1, total_iters=warmup_epochs), CosineAnnealingLR(optimizer, T_max=epochs - warmup_epochs)], milestones=[warmup_epochs])',
    "sequential_epochs_named": '''warmup = LinearLR(optimizer, start_factor=0.01, total_iters=warmup_epochs)
    cosine = CosineAnnealingLR(optimizer, T_max=epochs - warmup_epochs, eta_min=1e-5)
    scheduler = SequentialLR(optimizer, [warmup, cosine], milestones=[warmup_epochs])''',
    "chained_epochs": '''scheduler = ChainedScheduler([LinearLR(optimizer, start_factor=0.1, total_iters=warmup_epochs), ExponentialLR(optimizer, gamma=0.9)])''',
}
_SEQ_STEPS = {
    "sequential_steps": 'scheduler = SequentialLR(optimizer, schedulers=[LinearLR(optimizer, start_factor=0.01, total_iters=warmup_steps), CosineAnnealingLR(optimizer, T_max=total_steps - warmup_steps)], milestones=[warmup_steps])',
    "sequential_steps_named": '''warmup = LinearLR(optimizer, start_factor=1e-3, end_factor=1.0, total_iters=warmup_steps)
    decay = CosineAnnealingLR(optimizer, T_max=total_steps - warmup_steps)
    scheduler = SequentialLR(optimizer, schedulers=[warmup, decay], milestones=[warmup_steps])''',
}
for n, s in _SEQ_EPOCHS.items():
    V[f"{n}_per_epoch_correct"] = ([], _SEQ.format(sched=s, batch="", epoch="        scheduler.step()"))
for n, s in _SEQ_STEPS.items():
    V[f"{n}_per_batch_correct"] = ([], _SEQ.format(sched=s, batch="            scheduler.step()", epoch=""))
V["sequential_epochs_per_batch_buggy"] = (["LRD002"], _SEQ.format(sched=_SEQ_EPOCHS["sequential_epochs_named"], batch="            scheduler.step()", epoch=""))
V["sequential_steps_per_epoch_buggy"] = (["LRD003"], _SEQ.format(sched=_SEQ_STEPS["sequential_steps_named"], batch="", epoch="        scheduler.step()"))

# ---------------- warm-up wrappers ----------------
V["gradual_warmup_after_cosine_correct"] = ([], '''
import torch
from warmup_scheduler import GradualWarmupScheduler

def train(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    cosine = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs - 5)
    scheduler = GradualWarmupScheduler(optimizer, multiplier=1, total_epoch=5, after_scheduler=cosine)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        scheduler.step()
''')
V["pytorch_warmup_dampening_correct"] = ([], '''
import torch
import pytorch_warmup as warmup

def train(model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    num_steps = len(loader) * epochs
    lr_scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=num_steps)
    warmup_scheduler = warmup.UntunedLinearWarmup(optimizer)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
            with warmup_scheduler.dampening():
                lr_scheduler.step()
''')
# ---------------- ReduceLROnPlateau(mode="max") ----------------
_PL = '''
import torch

def train(model, loader, val_loader, epochs, evaluate):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau({args})
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
{tail}
'''
for n, (args, tail) in {
    "acc_positional": ('optimizer, "max", factor=0.5, patience=3', '        val_acc = evaluate(model, val_loader)\n        scheduler.step(val_acc)'),
    "acc_metrics_kw": ('optimizer, mode="max", patience=5', '        acc1 = evaluate(model, val_loader)\n        scheduler.step(metrics=acc1)'),
    "f1_dict": ('optimizer, mode="max"', '        metrics = evaluate(model, val_loader)\n        scheduler.step(metrics["f1"])'),
    "map_attr": ('optimizer, mode="max", threshold=1e-3', '        result = evaluate(model, val_loader)\n        scheduler.step(result.mAP)'),
    "score_tuple": ('optimizer, mode="max", verbose=True', '        val_loss, val_score = evaluate(model, val_loader)\n        scheduler.step(val_score)'),
    "loss_min": ('optimizer, "min"', '        val_loss, val_acc = evaluate(model, val_loader)\n        scheduler.step(val_loss)'),
}.items():
    V[f"plateau_{n}_per_epoch_correct"] = ([], _PL.format(args=args, tail=tail))
V["plateau_max_fed_val_loss_buggy"] = (["LRD004"], _PL.format(args='optimizer, mode="max"', tail='        val_loss = evaluate(model, val_loader)\n        scheduler.step(val_loss)'))
V["plateau_min_fed_val_acc_buggy"] = (["LRD004"], _PL.format(args='optimizer, mode="min"', tail='        val_acc = evaluate(model, val_loader)\n        scheduler.step(val_acc)'))

# ---------------- autocast(enabled=) with scaler built elsewhere; isfinite; unscale_ ----------------
_AMP_CLS = '''
import torch

class Trainer:
    def __init__(self, model, args):
        self.model = model
        self.args = args
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=10)
        self.scaler = torch.cuda.amp.GradScaler(enabled=args.amp)

    def train_epoch(self, loader):
        for x, y in loader:
            self.optimizer.zero_grad()
            with torch.cuda.amp.autocast(enabled=self.args.amp):
                loss = torch.nn.functional.mse_loss(self.model(x), y)
{step}

    def fit(self, loader, epochs):
        for epoch in range(epochs):
            self.train_epoch(loader)
            self.scheduler.step()
'''
_STEPS = {
    "plain": '''            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)
            self.scaler.update()''',
    "unscale_then_clip": '''            self.scaler.scale(loss).backward()
            self.scaler.unscale_(self.optimizer)
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
            self.scaler.step(self.optimizer)
            self.scaler.update()''',
    "unscale_then_clip_value": '''            self.scaler.scale(loss).backward()
            if self.args.clip > 0:
                self.scaler.unscale_(self.optimizer)
                torch.nn.utils.clip_grad_value_(self.model.parameters(), self.args.clip)
            self.scaler.step(self.optimizer)
            self.scaler.update()''',
    "isfinite_skip": '''            if not torch.isfinite(loss):
                print("non-finite loss, skipping batch")
                continue
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)
            self.scaler.update()''',
    "isfinite_guarded_step": '''            self.scaler.scale(loss).backward()
            if torch.isfinite(loss).all():
                self.scaler.step(self.optimizer)
            self.scaler.update()''',
}
for n, s in _STEPS.items():
    V[f"amp_flag_scaler_in_init_{n}_epoch_scheduler_correct"] = (["LRD101", "LRD101"], _AMP_CLS.format(step=s))
V["amp_flag_clip_before_unscale_buggy"] = (["LRD101", "LRD101", "LRD108"], _AMP_CLS.format(step='''            self.scaler.scale(loss).backward()
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
            self.scaler.step(self.optimizer)
            self.scaler.update()'''))
V["amp_flag_optimizer_step_bypasses_scaler_buggy"] = (["LRD101", "LRD101", "LRD109"], _AMP_CLS.format(step='''            self.scaler.scale(loss).backward()
            self.optimizer.step()'''))


_CORRECT = sorted(n for n in V if n.endswith("_correct"))
_BUGGY = sorted(n for n in V if n.endswith("_buggy"))


@pytest.mark.parametrize("situation", _CORRECT)
def test_correct_framework_code_is_silent(situation: str) -> None:
    expected, source = V[situation]
    assert sorted(codes(source)) == sorted(expected)


@pytest.mark.parametrize("situation", _BUGGY)
def test_buggy_framework_code_is_reported(situation: str) -> None:
    expected, source = V[situation]
    assert sorted(codes(source)) == sorted(expected)
