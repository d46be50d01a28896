"""Shapes seen in the fresh-2026-12zzf105 batch (rcnew105, bench/realcode/README.md): mixed
precision and scheduler logging in GAN, diffusion, NeRF and video training scripts.

Programs written for these tests; no third-party code.

One false alarm of the batch, fixed: a checkpoint helper ``save_checkpoint(model, optimizer,
lr, step, path)`` whose dict stores ``optimizer.state_dict() if optimizer is not None else
None``, called (for a generator and a discriminator) with ``None`` for the optimizer. LRD007
read the ``optimizer`` key as optimizer state and reported the always-on GradScaler missing
beside it; the file holds the weights only. The entry is the literal ``None`` whenever the
parameter it tests was passed ``None`` and is never rebound: such an entry is now nothing
saved, as ``"optimizer": None`` is (a dict literal, or ``state["optimizer"] = ...`` on a dict
built before). A call that passes the optimizer still stores its state and is still judged.

Probing the family (about 30 programs: two GradScalers or one for a generator and a
discriminator, clipping with and without ``unscale_``, a timm-style scaler wrapper, EMA beside
AMP, per-step schedulers after ``scaler.step``, a torch-ngp trainer built from factories,
``get_lr()`` in logs, BCELoss under autocast, a scaled backward followed by a plain
``optimizer.step()``): one more miss, fixed. EDSR's ``make_optimizer`` defines ``class
CustomOptimizer(torch.optim.Adam)`` inside the function, registers a MultiStepLR on it and
logs ``optimizer.get_lr()``, whose body is ``self.scheduler.get_lr()[0]``: the chainable
formula read outside step(), LRD015. The tracer ignored ``class`` statements inside functions,
so the optimizer was a guess and its scheduler unknown; a class statement in a traced function
now binds its name to the class from there on. LRD015 also took any class with a ``step()`` of
its own (or any class it could not find) for a scheduler whose ``get_lr()`` runs inside its
step; it now asks what the class is: a scheduler by its bases, an optimizer by a torch
optimizer base (never a scheduler), and a wrapper with its own step() only when that step()
asks ``self.get_lr()``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, project_codes

AMP_LOOP = '''
    net = nn.Linear(4, 4).cuda()
    opt = torch.optim.AdamW(net.parameters(), 1e-3)
    scaler = torch.amp.GradScaler("cuda")
    for step in range(1000):
        x = torch.randn(8, 4).cuda()
        with torch.autocast("cuda"):
            loss = net(x).pow(2).mean()
        opt.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        if step % 100 == 0:
'''

SAVE_HELPER_IFEXP = '''
import torch
from torch import nn


def save_checkpoint(model, optimizer, step, path):
    torch.save({"model": model.state_dict(),
                "optimizer": OPT_ENTRY,
                "step": step}, path)


def main():
''' + AMP_LOOP + '''            CALLS


main()
'''


def _save_helper(entry: str, *calls: str) -> str:
    return SAVE_HELPER_IFEXP.replace("OPT_ENTRY", entry).replace(
        "CALLS", "\n            ".join(calls))


IS_NOT_NONE = "optimizer.state_dict() if optimizer is not None else None"
IS_NONE = "None if optimizer is None else optimizer.state_dict()"
TRUTHY = "optimizer.state_dict() if optimizer else None"


@pytest.mark.parametrize("entry", [IS_NOT_NONE, IS_NONE, TRUTHY])
def test_helper_called_with_none_optimizer_saves_weights_only(entry: str) -> None:
    source = _save_helper(entry, 'save_checkpoint(net, None, step, "G_latest.pth")')
    assert codes(source) == []


@pytest.mark.parametrize("entry", [IS_NOT_NONE, IS_NONE, TRUTHY])
def test_helper_called_with_the_optimizer_still_misses_the_scaler(entry: str) -> None:
    source = _save_helper(entry, 'save_checkpoint(net, opt, step, "last.pth")')
    assert codes(source) == ["LRD007"]


def test_one_call_with_the_optimizer_beside_one_without_is_reported() -> None:
    source = _save_helper(IS_NOT_NONE, 'save_checkpoint(net, None, step, "weights.pth")',
                          'save_checkpoint(net, opt, step, "last.pth")')
    assert codes(source) == ["LRD007"]


def test_parameter_rebound_in_the_helper_is_not_decided_by_the_call() -> None:
    source = '''
import torch
from torch import nn

LAST = {}


def save_checkpoint(model, optimizer, step, path):
    if optimizer is None:
        optimizer = LAST.get("opt")
    torch.save({"model": model.state_dict(),
                "optimizer": optimizer.state_dict() if optimizer is not None else None,
                "step": step}, path)


def main():
''' + AMP_LOOP + '''            LAST["opt"] = opt
            save_checkpoint(net, None, step, "last.pth")


main()
'''
    assert codes(source) == ["LRD007"]


STATE_BY_SUBSCRIPT = '''
import torch
from torch import nn


def save_checkpoint(path, model, optimizer=None, epoch=0):
    state = {"model": model.state_dict(), "epoch": epoch}
    state["optimizer"] = optimizer.state_dict() if optimizer is not None else None
    torch.save(state, path)


def main():
''' + AMP_LOOP + '''            save_checkpoint("w.pth", net, optimizer=PASSED, epoch=step)


main()
'''


def test_entry_written_by_subscript_with_none_passed_is_silent() -> None:
    assert codes(STATE_BY_SUBSCRIPT.replace("PASSED", "None")) == []


def test_entry_written_by_subscript_with_the_optimizer_is_reported() -> None:
    assert codes(STATE_BY_SUBSCRIPT.replace("PASSED", "opt")) == ["LRD007"]


def test_helper_in_another_module_called_with_none(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "utils.py": '''
            import torch


            def save_checkpoint(model, optimizer, learning_rate, iteration, checkpoint_path):
                torch.save({"model": model.state_dict(),
                            "iteration": iteration,
                            "optimizer": optimizer.state_dict() if optimizer is not None else None,
                            "learning_rate": learning_rate}, checkpoint_path)
            ''',
        "train.py": '''
            import torch
            from torch import nn
            import utils


            def run(fp16, epochs, loader):
                net_g = nn.Linear(4, 4).cuda()
                net_d = nn.Linear(4, 1).cuda()
                optim_g = torch.optim.AdamW(net_g.parameters(), 2e-4)
                optim_d = torch.optim.AdamW(net_d.parameters(), 2e-4)
                scheduler_g = torch.optim.lr_scheduler.ExponentialLR(optim_g, gamma=0.999)
                scheduler_d = torch.optim.lr_scheduler.ExponentialLR(optim_d, gamma=0.999)
                scaler = torch.amp.GradScaler("cuda", enabled=fp16)
                for epoch in range(epochs):
                    for step, x in enumerate(loader):
                        with torch.autocast("cuda", enabled=fp16):
                            d_loss = net_d(net_g(x).detach()).mean()
                        optim_d.zero_grad()
                        scaler.scale(d_loss).backward()
                        scaler.unscale_(optim_d)
                        scaler.step(optim_d)
                        with torch.autocast("cuda", enabled=fp16):
                            g_loss = -net_d(net_g(x)).mean()
                        optim_g.zero_grad()
                        scaler.scale(g_loss).backward()
                        scaler.unscale_(optim_g)
                        scaler.step(optim_g)
                        scaler.update()
                        if step % 200 == 0:
                            utils.save_checkpoint(net_g, None, 2e-4, epoch, "G_latest.pth")
                            utils.save_checkpoint(net_d, None, 2e-4, epoch, "D_latest.pth")
                    scheduler_g.step()
                    scheduler_d.step()
            ''',
    })
    assert project_codes(found) == []


# -- LRD015 through a class defined inside the function that builds the optimizer ---------

EDSR_OPTIMIZER = '''
import torch
from torch import nn


def make_optimizer(model, lr, milestones):
    class CustomOptimizer(torch.optim.Adam):
        def _register_scheduler(self, scheduler_class, **kwargs):
            self.scheduler = scheduler_class(self, **kwargs)

        def schedule(self):
            self.scheduler.step()

        def get_lr(self):
            return self.scheduler.READ()[0]

    optimizer = CustomOptimizer(model.parameters(), lr=lr)
    optimizer._register_scheduler(torch.optim.lr_scheduler.SCHED, milestones=milestones,
                                  gamma=0.5)
    return optimizer


def train(model, loader, epochs):
    optimizer = make_optimizer(model, 1e-4, [200, 400])
    for epoch in range(epochs):
        lr = optimizer.get_lr()
        print(f"[Epoch {epoch}] lr {lr:.2e}")
        for x, y in loader:
            optimizer.zero_grad()
            (model(x) - y).abs().mean().backward()
            optimizer.step()
        optimizer.schedule()
'''


def test_local_optimizer_class_reading_chainable_get_lr_is_reported() -> None:
    source = EDSR_OPTIMIZER.replace("READ", "get_lr").replace("SCHED", "MultiStepLR")
    assert codes(source) == ["LRD015"]


def test_local_optimizer_class_reading_get_last_lr_is_silent() -> None:
    source = EDSR_OPTIMIZER.replace("READ", "get_last_lr").replace("SCHED", "MultiStepLR")
    assert codes(source) == []


def test_local_optimizer_class_over_a_closed_form_scheduler_is_silent() -> None:
    source = EDSR_OPTIMIZER.replace("READ", "get_lr").replace(
        "SCHED", "OneCycleLR").replace("milestones=milestones,\n", "max_lr=lr, total_steps=600,\n")
    assert "LRD015" not in codes(source)


WRAPPER = '''
import torch
from torch import nn


class Wrapper:
    def __init__(self, params, lr, milestones):
        self.optimizer = torch.optim.Adam(params, lr=lr)
        self.scheduler = torch.optim.lr_scheduler.MultiStepLR(self.optimizer, milestones, 0.5)

    def get_lr(self):
        return self.scheduler.get_lr()[0]

    def step(self):
        STEP_BODY

    def zero_grad(self):
        self.optimizer.zero_grad()

    def schedule(self):
        self.scheduler.step()


def train(model, loader, epochs):
    optimizer = Wrapper(model.parameters(), 1e-4, [200, 400])
    for epoch in range(epochs):
        print(f"[Epoch {epoch}] lr {optimizer.get_lr():.2e}")
        for x, y in loader:
            optimizer.zero_grad()
            (model(x) - y).abs().mean().backward()
            optimizer.step()
        optimizer.schedule()
'''


def test_wrapper_whose_step_steps_the_optimizer_logs_get_lr() -> None:
    assert codes(WRAPPER.replace("STEP_BODY", "self.optimizer.step()")) == ["LRD015"]


def test_wrapper_whose_step_computes_through_its_get_lr_is_silent() -> None:
    body = ("self.optimizer.step()\n"
            "        for group, lr in zip(self.optimizer.param_groups, [self.get_lr()]):\n"
            "            group['lr'] = lr")
    assert "LRD015" not in codes(WRAPPER.replace("STEP_BODY", body))


def test_local_scheduler_subclass_handing_over_is_silent() -> None:
    source = '''
import torch
from torch import nn
from torch.optim.lr_scheduler import _LRScheduler


def main(model, loader, epochs):
    class Warmup(_LRScheduler):
        def __init__(self, optimizer, warm, after):
            self.warm = warm
            self.after = after
            super().__init__(optimizer)

        def get_lr(self):
            if self.last_epoch < self.warm:
                return [b * (self.last_epoch + 1) / self.warm for b in self.base_lrs]
            return self.after.get_lr()

        def step(self, epoch=None):
            if self.last_epoch >= self.warm:
                self.after.step()
            super().step()

    opt = torch.optim.SGD(model.parameters(), 0.1)
    sched = Warmup(opt, 5, torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs))
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        sched.step()
        print(epoch, sched.get_last_lr()[0])
'''
    assert codes(source) == []


def test_local_trainer_class_steps_epoch_scheduler_per_batch() -> None:
    source = '''
import torch
from torch import nn


def main(model, loader, epochs):
    class Trainer:
        def __init__(self, model):
            self.model = model
            self.opt = torch.optim.AdamW(model.parameters(), 1e-3)
            self.sched = torch.optim.lr_scheduler.StepLR(self.opt, step_size=30)

        def epoch(self, loader):
            for x, y in loader:
                self.opt.zero_grad()
                nn.functional.mse_loss(self.model(x), y).backward()
                self.opt.step()
                self.sched.STEP_AT

    t = Trainer(model)
    for epoch in range(epochs):
        t.epoch(loader)
'''
    assert codes(source.replace("STEP_AT", "step()")) == ["LRD002"]


# -- the family's other spellings (kept as they were) ----------------------------------------

GAN_CLIP = '''
import torch
from torch import nn


def train(G, D, loader, epochs):
    opt_g = torch.optim.Adam(G.parameters(), 2e-4)
    opt_d = torch.optim.Adam(D.parameters(), 2e-4)
    scaler_g = torch.amp.GradScaler("cuda")
    scaler_d = torch.amp.GradScaler("cuda")
    for epoch in range(epochs):
        for real in loader:
            with torch.autocast("cuda"):
                fake = G(torch.randn(real.size(0), 64, device="cuda"))
                d_loss = D(fake.detach()).mean() - D(real).mean()
            opt_d.zero_grad()
            scaler_d.scale(d_loss).backward()
            UNSCALE_D
            nn.utils.clip_grad_norm_(D.parameters(), 1.0)
            scaler_d.step(opt_d)
            scaler_d.update()
            with torch.autocast("cuda"):
                g_loss = -D(fake).mean()
            opt_g.zero_grad()
            scaler_g.scale(g_loss).backward()
            scaler_g.unscale_(opt_g)
            nn.utils.clip_grad_norm_(G.parameters(), 1.0)
            scaler_g.step(opt_g)
            scaler_g.update()
'''


def test_gan_scaler_per_network_clip_without_unscale() -> None:
    assert codes(GAN_CLIP.replace("UNSCALE_D", "pass")) == ["LRD108"]


def test_gan_scaler_per_network_clip_after_unscale() -> None:
    assert codes(GAN_CLIP.replace("UNSCALE_D", "scaler_d.unscale_(opt_d)")) == []


NGP_TRAINER = '''
import argparse

import torch
from torch import nn


class Trainer:
    def __init__(self, model, optimizer, lr_scheduler, fp16=False,
                 scheduler_update_every_step=False):
        self.model = model
        self.optimizer = optimizer(model)
        self.lr_scheduler = lr_scheduler(self.optimizer)
        self.scaler = torch.amp.GradScaler("cuda", enabled=fp16)
        self.fp16 = fp16
        self.scheduler_update_every_step = scheduler_update_every_step

    def train_one_epoch(self, loader):
        for data in loader:
            self.optimizer.zero_grad()
            with torch.autocast("cuda", enabled=self.fp16):
                loss = self.model(data).mean()
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)
            self.scaler.update()
            if self.scheduler_update_every_step:
                self.lr_scheduler.step()
        if not self.scheduler_update_every_step:
            self.lr_scheduler.step()

    def train(self, loader, epochs):
        for _ in range(epochs):
            self.train_one_epoch(loader)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fp16", action="store_true")
    parser.add_argument("--iters", type=int, default=30000)
    opt = parser.parse_args()
    model = nn.Linear(3, 3)
    loader = [torch.randn(4, 3)] * 100
    optimizer = lambda m: torch.optim.Adam(m.parameters(), lr=1e-2, eps=1e-15)
    scheduler = lambda o: torch.optim.lr_scheduler.LambdaLR(
        o, lambda it: 0.1 ** min(it / opt.iters, 1))
    trainer = Trainer(model, optimizer, scheduler, fp16=opt.fp16,
                      scheduler_update_every_step=True)
    trainer.train(loader, 300)


main()
'''


def test_factory_built_per_step_schedule_after_flagged_scaler() -> None:
    assert codes(NGP_TRAINER) == ["LRD005"]


def test_scaled_backward_then_plain_optimizer_step() -> None:
    source = '''
import torch


class Trainer:
    def __init__(self, model, steps):
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3, eps=1e-15)
        self.scheduler = torch.optim.lr_scheduler.MultiStepLR(
            self.optimizer, [steps // 2, steps * 3 // 4], 0.33)
        self.grad_scaler = torch.amp.GradScaler("cuda", 2 ** 10)
        self.steps = steps

    def fit(self, loader):
        it = iter(loader)
        for step in range(self.steps):
            loss = self.model(next(it)).mean()
            self.optimizer.zero_grad()
            self.grad_scaler.scale(loss).backward()
            self.optimizer.step()
            self.scheduler.step()
'''
    assert codes(source) == ["LRD109"]
