"""More framework families, second round: config-dict schedulers (mmengine), fairseq-style
`step_update`/`step(epoch, val_loss)`, timm's absolute `step(epoch)` at the start of an epoch,
Hugging Face Trainer overrides and callbacks, SWALR after a start epoch, and DeepSpeed engines:
`engine.step()` is the optimizer step and steps the scheduler handed to
`deepspeed.initialize(lr_scheduler=...)`, so the user stepping that scheduler again is a double
step (LRD012) and an epoch-sized one handed to the engine is LRD002; a scheduler the user
keeps and steps per epoch is fine."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

V: dict[str, tuple[list[str], str]] = {}
V["mmengine_param_scheduler_config_dicts_correct"] = ([], '''
import torch
optim_wrapper = dict(optimizer=dict(type="AdamW", lr=1e-3, weight_decay=0.05))
param_scheduler = [
    dict(type="LinearLR", start_factor=0.001, by_epoch=False, begin=0, end=500),
    dict(type="CosineAnnealingLR", T_max=300, by_epoch=True, begin=0, end=300),
]
train_cfg = dict(by_epoch=True, max_epochs=300, val_interval=1)
''')
V["mmengine_runner_from_cfg_correct"] = ([], '''
from mmengine.config import Config
from mmengine.runner import Runner

def main(path):
    cfg = Config.fromfile(path)
    cfg.param_scheduler = [dict(type="MultiStepLR", milestones=[8, 11], by_epoch=True)]
    runner = Runner.from_cfg(cfg)
    runner.train()
''')
V["fairseq_style_step_update_and_epoch_correct"] = ([], '''
import torch
from fairseq import lr_scheduler as lr_sched

def train(cfg, model, epoch_itr, validate):
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr, eps=1e-8)
    lr_scheduler = lr_sched.build_lr_scheduler(cfg.lr_scheduler, optimizer)
    lr_scheduler.step_update(0)
    num_updates = 0
    for epoch in range(1, cfg.max_epoch + 1):
        for i, samples in enumerate(epoch_itr):
            loss = model(samples)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            num_updates += 1
            lr_scheduler.step_update(num_updates)
        valid_loss = validate(model)
        lr_scheduler.step(epoch, valid_loss)
''')
V["timm_step_at_epoch_start_absolute_correct"] = ([], '''
import torch
from timm.scheduler import CosineLRScheduler

def train(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    lr_scheduler = CosineLRScheduler(optimizer, t_initial=epochs, warmup_t=3, warmup_lr_init=1e-4)
    for epoch in range(epochs):
        lr_scheduler.step(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
''')
V["timm_scheduler_state_saved_correct"] = ([], '''
import torch
from timm.scheduler import create_scheduler_v2

def train(args, model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    lr_scheduler, num_epochs = create_scheduler_v2(optimizer, sched="cosine", num_epochs=args.epochs, updates_per_epoch=len(loader))
    for epoch in range(num_epochs):
        for i, (x, y) in enumerate(loader):
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
            lr_scheduler.step_update(num_updates=epoch * len(loader) + i + 1)
        lr_scheduler.step(epoch + 1)
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch}, "last.pth")
''')
_DS = '''
import torch
import deepspeed

def train(args, model, loader):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 1000))
    engine, optimizer, _, scheduler = deepspeed.initialize(model=model, optimizer=optimizer, lr_scheduler=scheduler, config=args.ds_config)
    for epoch in range(args.epochs):
        for batch in loader:
            loss = engine(batch)
            engine.backward(loss)
            engine.step()
{extra}
'''
V["deepspeed_user_steps_the_engines_scheduler_again_buggy"] = (["LRD012"], _DS.format(extra="            scheduler.step()"))
V["deepspeed_engine_alone_correct"] = ([], _DS.format(extra=""))
V["deepspeed_scheduler_not_given_to_engine_user_steps_correct"] = ([], '''
import torch
import deepspeed

def train(args, model, loader):
    engine, optimizer, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=args.ds_config)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 1000))
    for epoch in range(args.epochs):
        for batch in loader:
            loss = engine(batch)
            engine.backward(loss)
            engine.step()
            scheduler.step()
''')
V["deepspeed_engine_fp16_config_adam_correct"] = ([], '''
import torch
import deepspeed

ds_config = {"train_batch_size": 32, "fp16": {"enabled": True}, "optimizer": {"type": "Adam", "params": {"lr": 1e-4, "eps": 1e-8}}}

def train(model, loader):
    engine, optimizer, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=ds_config)
    for batch in loader:
        loss = engine(batch.half())
        engine.backward(loss)
        engine.step()
''')
V["hf_trainer_training_step_override_correct"] = ([], '''
import torch
from transformers import Trainer

class DistillTrainer(Trainer):
    def training_step(self, model, inputs, num_items_in_batch=None):
        model.train()
        with self.compute_loss_context_manager():
            loss = self.compute_loss(model, inputs)
        self.accelerator.backward(loss)
        return loss.detach() / self.args.gradient_accumulation_steps
''')
V["hf_trainer_create_optimizer_only_correct"] = ([], '''
import torch
from transformers import Trainer

class LayerwiseLRTrainer(Trainer):
    def create_optimizer(self):
        groups = [{"params": [p for n, p in self.model.named_parameters() if "head" in n], "lr": 1e-3},
                  {"params": [p for n, p in self.model.named_parameters() if "head" not in n]}]
        self.optimizer = torch.optim.AdamW(groups, lr=self.args.learning_rate)
        return self.optimizer
''')
V["hf_trainer_callback_sets_lr_correct"] = ([], '''
from transformers import TrainerCallback

class LogLR(TrainerCallback):
    def on_step_end(self, args, state, control, optimizer=None, lr_scheduler=None, **kwargs):
        if state.global_step % args.logging_steps == 0:
            print(lr_scheduler.get_last_lr()[0])
''')
V["swa_utils_swalr_per_batch_after_start_correct"] = ([], '''
import torch
from torch.optim.swa_utils import AveragedModel, SWALR

def train(model, loader, epochs, swa_start):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    swa_model = AveragedModel(model)
    swa_scheduler = SWALR(optimizer, anneal_strategy="linear", anneal_epochs=5, swa_lr=0.05)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        if epoch >= swa_start:
            swa_model.update_parameters(model)
            swa_scheduler.step()
    torch.optim.swa_utils.update_bn(loader, swa_model)
''')
V["deepspeed_epoch_steplr_handed_to_engine_buggy"] = (["LRD002"], '''
import torch
import deepspeed

def train(args, model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30, gamma=0.1)
    model_engine, optimizer, _, scheduler = deepspeed.initialize(args=args, model=model, optimizer=optimizer, lr_scheduler=scheduler)
    for epoch in range(args.epochs):
        for batch in loader:
            loss = model_engine(batch)
            model_engine.backward(loss)
            model_engine.step()
''')
V["deepspeed_epoch_steplr_kept_by_user_per_epoch_correct"] = ([], '''
import torch
import deepspeed

def train(args, model, loader):
    model_engine, optimizer, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30, gamma=0.1)
    for epoch in range(args.epochs):
        for batch in loader:
            loss = model_engine(batch)
            model_engine.backward(loss)
            model_engine.step()
        scheduler.step()
''')
V["deepspeed_user_steps_engine_scheduler_per_epoch_too_buggy"] = (["LRD012"], '''
import torch
import deepspeed

def train(args, model, loader):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    warmup = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 2000))
    engine, optimizer, _, warmup = deepspeed.initialize(model=model, optimizer=optimizer, lr_scheduler=warmup, config=args.ds_config)
    for epoch in range(args.epochs):
        for batch in loader:
            loss = engine(batch)
            engine.backward(loss)
            engine.step()
        warmup.step()
''')
V["deepspeed_positional_initialize_engine_only_correct"] = ([], '''
import torch
import deepspeed

def train(args, model, loader):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-4, total_steps=args.steps)
    engine, optimizer, _, scheduler = deepspeed.initialize(args, model, optimizer, None, None, scheduler)
    step = 0
    while step < args.steps:
        for batch in loader:
            loss = engine(batch)
            engine.backward(loss)
            engine.step()
            step += 1
''')


@pytest.mark.parametrize("situation", sorted(n for n in V if n.endswith("_correct")))
def test_correct_framework_code_is_silent(situation: str) -> None:
    expected, source = V[situation]
    assert codes(source) == expected


@pytest.mark.parametrize("situation", sorted(n for n in V if n.endswith("_buggy")))
def test_framework_bug_is_reported(situation: str) -> None:
    expected, source = V[situation]
    assert codes(source) == expected
