"""Checkpoint and resume shapes probed after the fresh-2026-12zy98 batch (rcnew98,
bench/realcode/README.md), whose dev half lrdoctor already read right at first sight.

Programs written for these tests; no third-party code.

The one shape found missing: a scheduler whose saved state a resume loads, replaced
afterwards by a scheduler built anew on the same optimizer (``scheduler.load_state_dict(...)``
... ``scheduler = OneCycleLR(optimizer, ...)``: the rebuild after the restore, in the same
function, through a factory after a helper that restored it, or in a trainer's training method
after its resume method). lrdoctor counted the restore as the scheduler's and reported
nothing. Python: ``load_state_dict`` filled the old object, which the name no longer holds;
the new scheduler is the one stepped and it starts its schedule from the beginning on every
resume. Reported (LRD007) when the restored object never steps after the restore and another
scheduler of the same optimizer, built after the restore on a branch the restore does not
exclude, is stepped; silent when the rebuild is on the other branch of the resume test, comes
before the restore, or is positioned (``last_epoch=``), and when the new scheduler drives
another optimizer.

The other spellings below (one helper module storing what the driver hands it, a trainer's
``if full:`` checkpoint beside weights-only best files, a checkpoint dict handed by keyword to
a helper module, a scheduler rebuilt with ``last_epoch`` instead of stored, a scheduler class
picked from a configuration by name, a GradScaler inside a project wrapper class,
``accelerator.save_state`` with and without the scheduler prepared, DeepSpeed's
``save_checkpoint`` with and without the scheduler handed to ``deepspeed.initialize``, a
resume that restores the scaler but not the scheduler, optional states written as
``x.state_dict() if x else None``, states kept in files of their own) were already read right;
they are kept as tests.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, messages, project_codes

# -- a restored scheduler replaced by a new one (the miss) --------------------------------------

RESTORED_THEN_REBUILT = """
import torch


def main(model, loader, epochs, resume=None):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, epochs=epochs,
                                                    steps_per_epoch=len(loader))
    first = 0
    if resume:
        state = torch.load(resume)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        first = state["epoch"] + 1
{rebuild}
    for epoch in range(first, epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
            scheduler.step()
        torch.save({{"epoch": epoch, "model": model.state_dict(),
                    "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict()}}, "last.pt")
"""

REBUILDS = {
    # after the resume block, on every run
    "after_the_restore": """
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, epochs=epochs,
                                                    steps_per_epoch=len(loader))
""",
    # inside the resume block, after the restore
    "inside_the_resume_block": """
    if resume:
        scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, epochs=epochs,
                                                        steps_per_epoch=len(loader))
""",
}


@pytest.mark.parametrize("name", sorted(REBUILDS))
def test_scheduler_rebuilt_after_its_state_was_restored(name: str) -> None:
    assert "LRD007" in codes(RESTORED_THEN_REBUILT.format(rebuild=REBUILDS[name]))


def test_scheduler_restored_and_kept() -> None:
    assert "LRD007" not in codes(RESTORED_THEN_REBUILT.format(rebuild=""))


def test_scheduler_rebuilt_only_when_not_resuming() -> None:
    rebuild = """
    if not resume:
        scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, epochs=epochs,
                                                        steps_per_epoch=len(loader))
"""
    assert "LRD007" not in codes(RESTORED_THEN_REBUILT.format(rebuild=rebuild))


def test_scheduler_rebuilt_then_restored() -> None:
    source = """
    import torch


    def main(model, loader, epochs, resume=None):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, epochs=epochs,
                                                        steps_per_epoch=len(loader))
        first = 0
        if resume:
            state = torch.load(resume)
            model.load_state_dict(state["model"])
            optimizer.load_state_dict(state["optimizer"])
            scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, epochs=epochs,
                                                            steps_per_epoch=len(loader))
            scheduler.load_state_dict(state["scheduler"])
            first = state["epoch"] + 1
        for epoch in range(first, epochs):
            for x, y in loader:
                optimizer.zero_grad()
                torch.nn.functional.cross_entropy(model(x), y).backward()
                optimizer.step()
                scheduler.step()
            torch.save({"epoch": epoch, "model": model.state_dict(),
                        "optimizer": optimizer.state_dict(),
                        "scheduler": scheduler.state_dict()}, "last.pt")
    """
    assert "LRD007" not in codes(source)


def test_scheduler_rebuilt_at_the_resumed_position() -> None:
    """A closed-form schedule rebuilt with ``last_epoch=`` after the restore: the new one
    starts where the run stopped."""
    source = """
    import math
    import torch


    def main(model, loader, epochs, resume=None):
        optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
        shape = lambda e: 0.5 * (1 + math.cos(math.pi * e / epochs))
        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, shape)
        first = 0
        if resume:
            state = torch.load(resume)
            model.load_state_dict(state["model"])
            optimizer.load_state_dict(state["optimizer"])
            scheduler.load_state_dict(state["scheduler"])
            first = state["epoch"] + 1
            scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, shape, last_epoch=first - 1)
        for epoch in range(first, epochs):
            for x, y in loader:
                optimizer.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                optimizer.step()
            scheduler.step()
            torch.save({"epoch": epoch, "model": model.state_dict(),
                        "optimizer": optimizer.state_dict(),
                        "scheduler": scheduler.state_dict()}, "last.pt")
    """
    assert "LRD007" not in codes(source)


def test_new_scheduler_for_another_optimizer_after_the_restore() -> None:
    """The restored scheduler keeps stepping; the one built after the restore drives a
    second network's optimizer, saved and restored through its own file."""
    source = """
    import torch


    def main(gen, disc, loader, epochs, resume=None):
        opt_g = torch.optim.Adam(gen.parameters(), lr=2e-4)
        sched_g = torch.optim.lr_scheduler.StepLR(opt_g, step_size=10)
        first = 0
        if resume:
            state = torch.load(resume)
            gen.load_state_dict(state["gen"])
            opt_g.load_state_dict(state["opt_g"])
            sched_g.load_state_dict(state["sched_g"])
            first = state["epoch"] + 1
        opt_d = torch.optim.Adam(disc.parameters(), lr=2e-4)
        sched_d = torch.optim.lr_scheduler.StepLR(opt_d, step_size=10)
        for epoch in range(first, epochs):
            for x in loader:
                opt_d.zero_grad()
                disc(gen(x).detach()).mean().backward()
                opt_d.step()
                opt_g.zero_grad()
                (-disc(gen(x)).mean()).backward()
                opt_g.step()
            sched_g.step()
            sched_d.step()
            torch.save({"epoch": epoch, "gen": gen.state_dict(), "opt_g": opt_g.state_dict(),
                        "sched_g": sched_g.state_dict()}, "last.pt")
    """
    assert "LRD007" not in codes(source)


def test_factory_rebuild_after_a_helper_restored_the_scheduler() -> None:
    source = """
    import torch


    def make_scheduler(optimizer, cfg, per_epoch):
        if cfg.sched == "cosine":
            return torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg.epochs * per_epoch)
        return torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=cfg.lr,
                                                   total_steps=cfg.epochs * per_epoch)


    def restore(path, model, optimizer, scheduler):
        state = torch.load(path)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        return state["epoch"] + 1


    def main(cfg, model, loader):
        optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
        scheduler = make_scheduler(optimizer, cfg, len(loader))
        first = 0
        if cfg.resume:
            first = restore(cfg.resume, model, optimizer, scheduler)
        if cfg.freeze_backbone:
            for p in model.backbone.parameters():
                p.requires_grad_(False)
        scheduler = make_scheduler(optimizer, cfg, len(loader))
        for epoch in range(first, cfg.epochs):
            for x, y in loader:
                optimizer.zero_grad()
                torch.nn.functional.cross_entropy(model(x), y).backward()
                optimizer.step()
                scheduler.step()
            torch.save({"epoch": epoch, "model": model.state_dict(),
                        "optimizer": optimizer.state_dict(),
                        "scheduler": scheduler.state_dict()}, "last.pt")
    """
    assert "LRD007" in codes(source)


TRAINER_REBUILDING = """
import torch


class Trainer:
    def __init__(self, model, loader, cfg):
        self.model = model
        self.loader = loader
        self.cfg = cfg
        self.optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr, momentum=0.9)
        self.scheduler = torch.optim.lr_scheduler.MultiStepLR(self.optimizer, milestones=[30, 60])
        self.first = 0
        if cfg.resume:
            self.resume(cfg.resume)

    def resume(self, path):
        state = torch.load(path)
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])
        self.first = state["epoch"] + 1

    def train(self):
{rebuild}
        for epoch in range(self.first, self.cfg.epochs):
            for x, y in self.loader:
                self.optimizer.zero_grad()
                torch.nn.functional.cross_entropy(self.model(x), y).backward()
                self.optimizer.step()
            self.scheduler.step()
            torch.save({{"epoch": epoch, "model": self.model.state_dict(),
                        "optimizer": self.optimizer.state_dict(),
                        "scheduler": self.scheduler.state_dict()}}, "last.pt")


def main(model, loader, cfg):
    Trainer(model, loader, cfg).train()
"""


def test_trainer_rebuilds_its_scheduler_when_training_starts() -> None:
    rebuild = ("        self.scheduler = torch.optim.lr_scheduler.MultiStepLR(self.optimizer, "
               "milestones=[30, 60])")
    assert "LRD007" in codes(TRAINER_REBUILDING.format(rebuild=rebuild))


def test_trainer_keeps_the_scheduler_it_restored() -> None:
    assert "LRD007" not in codes(TRAINER_REBUILDING.format(rebuild="        pass"))


# -- spellings already read right, kept as tests -----------------------------------------------

HELPER_MODULE = """
import torch


def save_checkpoint(path, model, optimizer{extra}):
    torch.save({{"model": model.state_dict(), "optim": optimizer.state_dict(){stored}}}, path)


def load_checkpoint(path, model, optimizer=None{extra_default}):
    state = torch.load(path)
    model.load_state_dict(state["model"])
    if optimizer is not None:
        optimizer.load_state_dict(state["optim"])
{restore}"""

HELPER_DRIVER = """
import torch
from ckpt_utils import save_checkpoint, load_checkpoint


def main(model, loader, epochs, resume=None):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[30, 60], gamma=0.1)
    if resume:
        load_checkpoint(resume, model, optimizer{passed})
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        scheduler.step()
        save_checkpoint(f"ckpt_{{epoch}}.pt", model, optimizer{passed})
"""


def test_helper_module_without_the_scheduler(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    files = {
        "ckpt_utils.py": HELPER_MODULE.format(extra="", stored="", extra_default="", restore=""),
        "train.py": HELPER_DRIVER.format(passed=""),
    }
    assert "LRD007" in project_codes(check_project(tmp_path, monkeypatch, files))


def test_helper_module_with_the_scheduler(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    restore = ("    if scheduler is not None:\n"
               "        scheduler.load_state_dict(state[\"sched\"])\n")
    files = {
        "ckpt_utils.py": HELPER_MODULE.format(
            extra=", scheduler", stored=', "sched": scheduler.state_dict()',
            extra_default=", scheduler=None", restore=restore),
        "train.py": HELPER_DRIVER.format(passed=", scheduler"),
    }
    assert "LRD007" not in project_codes(check_project(tmp_path, monkeypatch, files))


TRAINER_FULL_FLAG = """
import glob
import torch


class Trainer:
    def __init__(self, model, optimizer, lr_scheduler, workspace):
        self.model = model
        self.optimizer = optimizer
        self.lr_scheduler = lr_scheduler
        self.workspace = workspace
        self.epoch = 1
        self.load_checkpoint()

    def train_one_epoch(self, loader):
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(self.model(x), y)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
        self.lr_scheduler.step()

    def train(self, loader, max_epochs):
        for epoch in range(self.epoch, max_epochs + 1):
            self.epoch = epoch
            self.train_one_epoch(loader)
            self.save_checkpoint(full=True)
            self.save_checkpoint(full=False, best=True)

    def save_checkpoint(self, full=True, best=False):
        state = {{"epoch": self.epoch, "model": self.model.state_dict()}}
        if full:
            state["optimizer"] = self.optimizer.state_dict()
{stored}        if best:
            torch.save(state, f"{{self.workspace}}/best.pth")
        else:
            torch.save(state, f"{{self.workspace}}/ep{{self.epoch:04d}}.pth")

    def load_checkpoint(self):
        paths = sorted(glob.glob(f"{{self.workspace}}/ep*.pth"))
        if not paths:
            return
        state = torch.load(paths[-1])
        self.model.load_state_dict(state["model"])
        self.epoch = state["epoch"] + 1
        if "optimizer" in state:
            self.optimizer.load_state_dict(state["optimizer"])
{restored}

def run(model, loader):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=60, gamma=0.2)
    Trainer(model, optimizer, scheduler, "work").train(loader, 200)
"""


def test_full_flag_checkpoint_without_the_scheduler() -> None:
    assert "LRD007" in codes(TRAINER_FULL_FLAG.format(stored="", restored=""))


def test_full_flag_checkpoint_with_the_scheduler_beside_weights_only_best() -> None:
    stored = '            state["lr_scheduler"] = self.lr_scheduler.state_dict()\n'
    restored = '            self.lr_scheduler.load_state_dict(state["lr_scheduler"])\n'
    assert "LRD007" not in codes(TRAINER_FULL_FLAG.format(stored=stored, restored=restored))


KEYWORD_HELPER = """
import os
import shutil
import torch


def save_checkpoint(checkpoint, dir_path="checkpoints", name="model", is_best=False):
    os.makedirs(dir_path, exist_ok=True)
    path = os.path.join(dir_path, name + ".pth")
    torch.save(checkpoint, path)
    if is_best:
        shutil.copyfile(path, os.path.join(dir_path, name + ".best.pth"))


def load_checkpoint(dir_path="checkpoints", name="model"):
    path = os.path.join(dir_path, name + ".pth")
    if os.path.exists(path):
        return torch.load(path, map_location="cpu")
    return None
"""

KEYWORD_DRIVER = """
import torch
import utils


def run(model, loader, epochs, resume_cfg=None):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    lr_scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[20, 40])
    first = 0
    best = 0.0
    if resume_cfg is not None:
        checkpoint = utils.load_checkpoint(**resume_cfg)
        if checkpoint is not None:
            model.load_state_dict(checkpoint["model_state_dict"])
            optimizer.load_state_dict(checkpoint["optimizer_state_dict"])
{restored}            first = checkpoint["epoch"] + 1
            best = checkpoint["best"]
    for epoch in range(first, epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        lr_scheduler.step()
        acc = 0.5
        is_best = acc > best
        best = max(acc, best)
        checkpoint = {{
            "epoch": epoch,
            "model_state_dict": model.state_dict(),
            "optimizer_state_dict": optimizer.state_dict(),
{stored}            "best": best,
        }}
        utils.save_checkpoint(checkpoint=checkpoint, is_best=is_best, dir_path="ckpt", name="model")
"""


def test_checkpoint_dict_handed_by_keyword_without_the_scheduler(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {"utils/__init__.py": "from .checkpoint import save_checkpoint, load_checkpoint\n",
             "utils/checkpoint.py": KEYWORD_HELPER,
             "train.py": KEYWORD_DRIVER.format(restored="", stored="")}
    assert "LRD007" in project_codes(check_project(tmp_path, monkeypatch, files))


def test_checkpoint_dict_handed_by_keyword_with_the_scheduler(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    restored = ('            lr_scheduler.load_state_dict('
                'checkpoint["lr_scheduler_state_dict"])\n')
    stored = '            "lr_scheduler_state_dict": lr_scheduler.state_dict(),\n'
    files = {"utils/__init__.py": "from .checkpoint import save_checkpoint, load_checkpoint\n",
             "utils/checkpoint.py": KEYWORD_HELPER,
             "train.py": KEYWORD_DRIVER.format(restored=restored, stored=stored)}
    assert "LRD007" not in project_codes(check_project(tmp_path, monkeypatch, files))


POSITIONED_NOT_STORED = """
import math
import torch


def main(model, loader, epochs, resume=None):
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    warmup = 5

    def factor(epoch):
        if epoch < warmup:
            return (epoch + 1) / warmup
        return 0.5 * (1 + math.cos(math.pi * (epoch - warmup) / (epochs - warmup)))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, factor)
    first = 1
    if resume:
        state = torch.load(resume)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        first = state["epoch"] + 1
{rebuild}    for epoch in range(first, epochs + 1):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        torch.save({{"epoch": epoch, "model": model.state_dict(),
                    "optimizer": optimizer.state_dict()}}, "latest.pth")
        scheduler.step()
"""


def test_schedule_neither_stored_nor_positioned() -> None:
    assert "LRD007" in codes(POSITIONED_NOT_STORED.format(rebuild=""))


def test_schedule_rebuilt_at_the_resumed_epoch_instead_of_stored() -> None:
    rebuild = ("        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, factor, "
               "last_epoch=first - 1)\n")
    assert "LRD007" not in codes(POSITIONED_NOT_STORED.format(rebuild=rebuild))


def test_scheduler_class_picked_by_name_from_a_configuration(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    driver = """
    import torch
    import pkg.optims as optims


    def worker(cfg, model, loader, val_loss_fn, resume=None):
        first = 0
        if resume:
            checkpoint = torch.load(resume)
            first = checkpoint["epoch"]
            model.load_state_dict(checkpoint["model"])
        optimizer = optims.__dict__[cfg["optimizer"]["arch"]](model.parameters(),
                                                              **cfg["optimizer"]["kwargs"])
        if resume:
            optimizer.load_state_dict(checkpoint["optimizer"])
        arch = cfg["lr_scheduler"]["arch"]
        kwargs = cfg["lr_scheduler"]["kwargs"]
        if arch != "ReduceLROnPlateau":
            kwargs["last_epoch"] = first - 1
        scheduler = optims.lr_schedulers.__dict__[arch](optimizer, **kwargs)
        if resume:
            scheduler.load_state_dict(checkpoint["lr_scheduler"])
        for epoch in range(first, cfg["epochs"]):
            for x, y in loader:
                optimizer.zero_grad()
                torch.nn.functional.cross_entropy(model(x), y).backward()
                optimizer.step()
            val_loss = val_loss_fn(model)
            scheduler.step(**({"metrics": val_loss} if arch == "ReduceLROnPlateau" else {}))
            torch.save({"epoch": epoch + 1, "model": model.state_dict(),
                        "optimizer": optimizer.state_dict(),
                        "lr_scheduler": scheduler.state_dict()}, "latest.pt")
    """
    files = {"pkg/__init__.py": "",
             "pkg/optims/__init__.py": "from torch.optim import *\nfrom . import lr_schedulers\n",
             "pkg/optims/lr_schedulers.py": "from torch.optim.lr_scheduler import *\n",
             "train.py": driver}
    assert project_codes(check_project(tmp_path, monkeypatch, files)) == []


AMP_WRAPPER = """
import torch


class AmpHelper:
    def __init__(self, enabled):
        self.enabled = enabled and torch.cuda.is_available()
        self.scaler = torch.amp.GradScaler("cuda", enabled=self.enabled)

    def autocast(self):
        return torch.autocast("cuda", dtype=torch.float16, enabled=self.enabled)

    def backward(self, loss):
        self.scaler.scale(loss).backward()

    def step(self, optimizer):
        self.scaler.step(optimizer)
        self.scaler.update()
"""

AMP_DRIVER = """
import torch
from amp_helper import AmpHelper


def main(model, loader, epochs, resume=None):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    amp = AmpHelper(enabled=True)
    first = 0
    if resume:
        state = torch.load(resume)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
{restored}        first = state["epoch"] + 1
    for epoch in range(first, epochs):
        for x, y in loader:
            optimizer.zero_grad()
            with amp.autocast():
                loss = torch.nn.functional.mse_loss(model(x), y)
            amp.backward(loss)
            amp.step(optimizer)
        scheduler.step()
        torch.save({{"epoch": epoch, "model": model.state_dict(),
                    "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(){stored}}}, "last.pt")
"""


def test_scaler_inside_a_wrapper_class_left_out(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    files = {"amp_helper.py": AMP_WRAPPER, "train.py": AMP_DRIVER.format(restored="", stored="")}
    assert "LRD007" in project_codes(check_project(tmp_path, monkeypatch, files))


def test_scaler_inside_a_wrapper_class_stored(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    files = {"amp_helper.py": AMP_WRAPPER,
             "train.py": AMP_DRIVER.format(
                 restored='        amp.scaler.load_state_dict(state["scaler"])\n',
                 stored=', "scaler": amp.scaler.state_dict()')}
    assert "LRD007" not in project_codes(check_project(tmp_path, monkeypatch, files))


ACCELERATE = """
import os
import torch
from accelerate import Accelerator
from transformers import get_cosine_schedule_with_warmup


def main(model, loader, epochs, out_dir, resume=False):
    accelerator = Accelerator(mixed_precision="fp16")
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
{setup}
    step = 0
    if resume:
        accelerator.load_state(os.path.join(out_dir, "state"))
    for epoch in range(epochs):
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(model(x), y)
            accelerator.backward(loss)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
            step += 1
            if step % 1000 == 0:
                accelerator.save_state(os.path.join(out_dir, "state"))
"""

ACCELERATE_SETUPS = {
    "not_prepared": """
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    scheduler = get_cosine_schedule_with_warmup(optimizer, num_warmup_steps=500,
                                                num_training_steps=epochs * len(loader))
""",
    "prepared": """
    scheduler = get_cosine_schedule_with_warmup(optimizer, num_warmup_steps=500,
                                                num_training_steps=epochs * len(loader))
    model, optimizer, loader, scheduler = accelerator.prepare(model, optimizer, loader, scheduler)
""",
    "registered": """
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    scheduler = get_cosine_schedule_with_warmup(optimizer, num_warmup_steps=500,
                                                num_training_steps=epochs * len(loader))
    accelerator.register_for_checkpointing(scheduler)
""",
}


@pytest.mark.parametrize("name", sorted(ACCELERATE_SETUPS))
def test_accelerate_save_state(name: str) -> None:
    found = "LRD007" in codes(ACCELERATE.format(setup=ACCELERATE_SETUPS[name]))
    assert found == (name == "not_prepared")


DEEPSPEED = """
import deepspeed
import torch


def main(args, model, loader):
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=args.lr,
                                                    total_steps=args.epochs * len(loader))
{setup}
    if args.resume:
        engine.load_checkpoint(args.output_dir)
    for epoch in range(args.epochs):
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(engine(x), y)
            engine.backward(loss)
            engine.step()
{step}
        engine.save_checkpoint(args.output_dir, tag=f"epoch{{epoch}}")
"""


def test_deepspeed_checkpoint_without_the_scheduler_it_was_not_given() -> None:
    setup = ("    engine, optimizer, _, _ = deepspeed.initialize(args=args, model=model, "
             "optimizer=optimizer)")
    assert "LRD007" in codes(DEEPSPEED.format(setup=setup, step="            scheduler.step()"))


def test_deepspeed_checkpoint_of_the_scheduler_it_was_given() -> None:
    setup = ("    engine, optimizer, _, scheduler = deepspeed.initialize(\n"
             "        args=args, model=model, optimizer=optimizer, lr_scheduler=scheduler)")
    assert "LRD007" not in codes(DEEPSPEED.format(setup=setup, step=""))


SCALER_NOT_SCHEDULER = """
import torch


def main(model, loader, epochs, resume=None):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, epochs=epochs,
                                                    steps_per_epoch=len(loader))
    scaler = torch.amp.GradScaler("cuda")
    first = 0
    if resume:
        ckpt = torch.load(resume)
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scaler.load_state_dict(ckpt["scaler"])
{restored}        first = ckpt["epoch"] + 1
    for epoch in range(first, epochs):
        for x, y in loader:
            optimizer.zero_grad()
            with torch.autocast("cuda", dtype=torch.float16):
                loss = torch.nn.functional.cross_entropy(model(x), y)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scale = scaler.get_scale()
            scaler.update()
            if scale <= scaler.get_scale():
                scheduler.step()
        torch.save({{"epoch": epoch, "model": model.state_dict(),
                    "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(),
                    "scaler": scaler.state_dict()}}, "last.pt")
"""


def test_resume_restores_the_scaler_but_not_the_stored_scheduler() -> None:
    assert "LRD007" in codes(SCALER_NOT_SCHEDULER.format(restored=""))


def test_resume_restores_the_scaler_and_the_scheduler() -> None:
    restored = '        scheduler.load_state_dict(ckpt["scheduler"])\n'
    assert "LRD007" not in codes(SCALER_NOT_SCHEDULER.format(restored=restored))


def test_optional_states_written_as_conditional_expressions(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    helper = """
    import os
    import torch


    def save_ckpt(path, model, optimizer, scheduler, step, best=False):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        torch.save({
            "model": model.state_dict(),
            "optimizer": optimizer.state_dict(),
            "scheduler": scheduler.state_dict() if scheduler else None,
            "step": step,
            "best": best,
        }, path)


    def load_ckpt(path, model=None, optimizer=None, scheduler=None, map_location="cpu"):
        ckpt = torch.load(path, map_location=map_location)
        if model:
            model.load_state_dict(ckpt["model"])
        if optimizer and ckpt.get("optimizer"):
            optimizer.load_state_dict(ckpt["optimizer"])
        if scheduler and ckpt.get("scheduler"):
            scheduler.load_state_dict(ckpt["scheduler"])
        return ckpt
    """
    driver = """
    import math
    import torch
    from utils.ckpt import save_ckpt, load_ckpt


    def warmup_cosine(optimizer, warmup, total):
        def f(step):
            if step < warmup:
                return step / max(1, warmup)
            return 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, total - warmup)))
        return torch.optim.lr_scheduler.LambdaLR(optimizer, f)


    def main(model, loader, epochs, resume=None):
        optim = torch.optim.AdamW(model.parameters(), lr=3e-4)
        sched = warmup_cosine(optim, 200, epochs * len(loader))
        step = 0
        if resume:
            step = load_ckpt(resume, model, optim, sched)["step"]
        for epoch in range(epochs):
            for x, y in loader:
                optim.zero_grad(set_to_none=True)
                torch.nn.functional.mse_loss(model(x), y).backward()
                optim.step()
                sched.step()
                step += 1
            save_ckpt("runs/last.pt", model, optim, sched, step)
    """
    files = {"utils/__init__.py": "", "utils/ckpt.py": helper, "train.py": driver}
    assert project_codes(check_project(tmp_path, monkeypatch, files)) == []


def test_states_kept_in_files_of_their_own() -> None:
    source = """
    import os
    import torch


    def main(model, loader, epochs, out, resume=False):
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=5, gamma=0.5)
        if resume:
            model.load_state_dict(torch.load(os.path.join(out, "model.pt")))
            optimizer.load_state_dict(torch.load(os.path.join(out, "optimizer.pt")))
            scheduler.load_state_dict(torch.load(os.path.join(out, "scheduler.pt")))
        for epoch in range(epochs):
            for x, y in loader:
                optimizer.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                optimizer.step()
            scheduler.step()
            torch.save(model.state_dict(), os.path.join(out, "model.pt"))
            torch.save(optimizer.state_dict(), os.path.join(out, "optimizer.pt"))
            torch.save(scheduler.state_dict(), os.path.join(out, "scheduler.pt"))
    """
    assert "LRD007" not in codes(source)


WARMUP_WRAPPED = """
import torch
from warmup_scheduler import GradualWarmupScheduler


def main(model, loader, epochs, resume=None):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
{build}
    first = 0
    if resume:
        state = torch.load(resume)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        first = state["epoch"] + 1
{wrap}
    for epoch in range(first, epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        scheduler.step()
        torch.save({{"epoch": epoch, "model": model.state_dict(),
                    "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict()}}, "last.pt")
"""

COSINE = "    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs - 5)"
WRAP = ("scheduler = GradualWarmupScheduler(optimizer, multiplier=1, total_epoch=5, "
        "after_scheduler=scheduler)")


def test_warmup_wrapper_built_around_the_restored_scheduler() -> None:
    """The restored cosine lives on inside the wrapper, but the wrapper's own warm-up (its
    step count and ``finished`` flag) starts over on every resume."""
    source = WARMUP_WRAPPED.format(build=COSINE, wrap="    " + WRAP)
    assert "LRD007" in codes(source)


def test_warmup_wrapper_built_before_the_restore() -> None:
    build = (COSINE.replace("scheduler =", "cosine =") + "\n    "
             + WRAP.replace("after_scheduler=scheduler", "after_scheduler=cosine"))
    assert "LRD007" not in codes(WARMUP_WRAPPED.format(build=build, wrap=""))


def test_warmup_wrapper_built_only_when_not_resuming() -> None:
    wrap = "    if not resume:\n        " + WRAP
    assert "LRD007" not in codes(WARMUP_WRAPPED.format(build=COSINE, wrap=wrap))


def test_the_finding_names_the_rebuilt_scheduler() -> None:
    rebuild = ("        self.scheduler = torch.optim.lr_scheduler.MultiStepLR(self.optimizer, "
               "milestones=[30, 60])")
    source = TRAINER_REBUILDING.format(rebuild=rebuild)
    lines = source.splitlines()
    line = len(lines) - lines[::-1].index(rebuild)  # the rebuild, not the __init__'s own
    found = [m for m in messages(source) if "restores the optimizer" in m]
    assert found and f"line {line})" in found[0]


CHAINED_AFTER_RESTORE = """
import torch


def main(model, loader, epochs, resume=None):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    warm = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1, total_iters=5)
    decay = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.95)
    first = 0
    if resume:
        state = torch.load(resume)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        warm.load_state_dict(state["warm"])
        decay.load_state_dict(state["decay"])
        first = state["epoch"] + 1
    scheduler = {combined}
    for epoch in range(first, epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        scheduler.step()
        torch.save({{"epoch": epoch, "model": model.state_dict(),
                    "optimizer": optimizer.state_dict(),
                    "warm": warm.state_dict(), "decay": decay.state_dict()}}, "last.pt")
"""


def _resume_findings(source: str) -> list[str]:
    return [m for m in messages(source) if "restores the optimizer" in m]


def test_sequential_schedule_built_around_restored_members() -> None:
    """SequentialLR's constructor puts the LR back to its start and replays its first member;
    its own count of steps (which member is in force) starts over."""
    combined = "torch.optim.lr_scheduler.SequentialLR(optimizer, [warm, decay], milestones=[5])"
    assert _resume_findings(CHAINED_AFTER_RESTORE.format(combined=combined))


def test_chained_schedule_built_around_restored_members() -> None:
    """ChainedScheduler holds no state of its own and takes no step when built: it steps the
    members it is given, both restored (checked on torch 2.13: the LRs after the resume are
    the uninterrupted run's)."""
    combined = "torch.optim.lr_scheduler.ChainedScheduler([warm, decay])"
    assert _resume_findings(CHAINED_AFTER_RESTORE.format(combined=combined)) == []
