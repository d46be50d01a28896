"""fphunt66: three false-alarm shapes (and one miss) found in speech, SSL, LLM, distillation,
pruning, continual and federated training code.

1. LRD007 on a checkpoint written after the scheduler is built and before it is first
   stepped (a starting point kept before training, a pruning round's checkpoint written right
   after the round builds its optimizer and scheduler): the scheduler's state there is a fresh
   one's, so nothing is lost. Still LRD007: a save at the top of each epoch of a scheduler
   built before the loop, a save after some steps, a round checkpoint of a scheduler built
   once for all rounds, one helper called before training and after each epoch. A save
   helper handed each caller's dict (`save_checkpoint({...}, path)`) judges each dict apart:
   the initial one is silent, the periodic one found.
2. LRD013 where the "per-rank" value came from a loop over a prepared model's parameters
   (`for name, p in model.named_parameters()`): `accelerator.prepare` returns the model too,
   and its parameters are the same on every rank; only what a loop draws from a prepared
   loader is a shard. Still LRD013: a metric summed over the prepared loader, also through
   `enumerate(...)`; and now also when the loss comes from `nn.functional` (torch's functional
   namespace reduces nothing across ranks; it was read as a function that may).
3. LRD017 where an Accelerate schedule stepped every micro-batch is sized in micro-batches
   through a config attribute (`if cfg.decay_until == "auto": cfg.decay_until = num_steps`)
   or a name rebound from itself (`num_steps = num_steps // accelerator.num_processes`), or a
   name bound on one branch: the horizon counts loader batches, so stepping per micro-batch
   runs the schedule over the whole run as sized; also for the project's own subclass of
   torch's scheduler, read where it is built. Still LRD017: the horizon divided by the
   accumulation count, a horizon the config alone gives, one divided by processes times the
   accumulation count.
4. A notebook cell holding a lone surrogate (`"\\udcca"`, half of an emoji's pair) was not
   checked at all ("cannot parse"); one replacement character now stands for it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, findings, notebook, project_codes

# -- 1. LRD007: a checkpoint of a scheduler never stepped yet ------------------------------------

_TRAIN = """
        for x, y in loader:
            opt.zero_grad()
            nn.functional.mse_loss(model(x), y).backward()
            opt.step()
"""


def test_an_initial_checkpoint_before_the_first_step_is_silent() -> None:
    assert codes("""
import torch
from torch import nn
from torch.optim.lr_scheduler import MultiStepLR

def main(model, loader, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = MultiStepLR(opt, [10, 20], 0.1)
    torch.save({"epoch": 0, "state_dict": model.state_dict(), "optimizer": opt.state_dict()}, "initial.pt")
    for epoch in range(epochs):""" + _TRAIN + """
        sched.step()
        torch.save({"epoch": epoch + 1, "state_dict": model.state_dict(), "optimizer": opt.state_dict(),
                    "scheduler": sched.state_dict()}, "last.pt")
""") == []


def test_a_helper_save_before_training_is_silent() -> None:
    assert codes("""
import torch
from torch import nn

def save_checkpoint(state, path):
    torch.save(state, path)

def fit(model, loader, epochs):
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-4, total_steps=epochs * len(loader))
    save_checkpoint({"model": model.state_dict(), "optimizer": opt.state_dict()}, "init.pt")
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            sched.step()
""") == []


def test_a_save_at_the_top_of_each_epoch_is_still_found() -> None:
    assert codes("""
import torch
from torch import nn

def main(model, loader, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, 10)
    for epoch in range(epochs):
        torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": opt.state_dict()}, "ckpt.pt")""" + _TRAIN + """
        sched.step()
""") == ["LRD007"]


def test_a_save_after_some_steps_is_still_found() -> None:
    assert codes("""
import torch
from torch import nn

def main(model, loader, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, 10)
    for epoch in range(3):""" + _TRAIN + """
        sched.step()
    torch.save({"model": model.state_dict(), "optimizer": opt.state_dict()}, "warm.pt")
    for epoch in range(3, epochs):""" + _TRAIN + """
        sched.step()
""") == ["LRD007"]


def test_a_round_checkpoint_of_a_scheduler_built_once_is_still_found() -> None:
    assert codes("""
import torch
from torch import nn

def rounds(model, loader, n_rounds, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs * n_rounds)
    for r in range(n_rounds):
        torch.save({"model": model.state_dict(), "optimizer": opt.state_dict()}, f"round{r}.pt")
        for epoch in range(epochs):
            for x, y in loader:
                opt.zero_grad()
                nn.functional.mse_loss(model(x), y).backward()
                opt.step()
            sched.step()
""") == ["LRD007"]


def test_one_helper_called_before_and_after_training_is_still_found() -> None:
    assert codes("""
import torch
from torch import nn

def checkpoint(model, opt, path):
    torch.save({"model": model.state_dict(), "optimizer": opt.state_dict()}, path)

def main(model, loader, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, 10)
    checkpoint(model, opt, "init.pt")
    for epoch in range(epochs):""" + _TRAIN + """
        sched.step()
        checkpoint(model, opt, f"e{epoch}.pt")
""") == ["LRD007"]


def test_a_helper_save_at_the_top_of_each_epoch_with_steps_in_a_callee_is_still_found() -> None:
    assert codes("""
import torch
from torch import nn

def save_ckpt(model, opt, epoch):
    torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": opt.state_dict()}, "c.pt")

def train_epoch(model, loader, opt, sched):
    for x, y in loader:
        opt.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()
        sched.step()

def main(model, loader, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=epochs * len(loader))
    for epoch in range(epochs):
        save_ckpt(model, opt, epoch)
        train_epoch(model, loader, opt, sched)
""") == ["LRD007"]


def test_a_helper_given_each_callers_dict_judges_each_checkpoint_apart() -> None:
    # one `torch.save(state, path)` writes the initial dict (before any step: silent) and the
    # periodic one (after steps: found)
    assert findings("""
import torch
from torch import nn
from torch.optim.lr_scheduler import MultiStepLR

def save_checkpoint(state, is_best, filename):
    torch.save(state, filename)

def main(model, loader, args):
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    scheduler = MultiStepLR(optimizer, args.milestones, 0.1)
    save_checkpoint({"epoch": 0, "state_dict": model.state_dict(),
                     "optimizer": optimizer.state_dict()}, False, "initial.state")
    for epoch in range(args.epochs):
        for x, y in loader:
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        scheduler.step()
        if (epoch + 1) % args.ckpt_interval == 0:
            save_checkpoint({"epoch": epoch + 1, "state_dict": model.state_dict(),
                             "optimizer": optimizer.state_dict()}, False, f"e{epoch}.state")
""") == [("LRD007", 21)]


# -- 2. LRD013: a loop over a prepared model's parameters is no shard ----------------------------

_ACCELERATE = """
import torch
from torch import nn
from accelerate import Accelerator

def run(model, loader, data, n_batches, epochs):
    accelerator = Accelerator()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=3)
    criterion = nn.MSELoss()
"""


def test_a_penalty_read_from_the_prepared_models_parameters_is_silent() -> None:
    assert codes(_ACCELERATE + """
    model, opt = accelerator.prepare(model, opt)
    for epoch in range(epochs):
        for i in range(n_batches):
            x, y = data[i]
            for name, param in model.named_parameters():
                if name == "proj.weight":
                    w = param
                    break
            loss = criterion(model(x), y) + 1e-4 * w.pow(2).sum()
            opt.zero_grad()
            accelerator.backward(loss)
            opt.step()
            sched.step(loss)
""") == []


def test_a_metric_summed_over_the_prepared_loader_is_still_found() -> None:
    assert codes(_ACCELERATE + """
    model, opt, loader = accelerator.prepare(model, opt, loader)
    for epoch in range(epochs):
        total = 0.0
        for x, y in loader:
            loss = criterion(model(x), y)
            opt.zero_grad()
            accelerator.backward(loss)
            opt.step()
            total += loss.item()
        sched.step(total)
""") == ["LRD013"]


def test_enumerate_over_the_prepared_loader_beside_a_parameter_penalty_is_still_found() -> None:
    assert codes(_ACCELERATE + """
    model, opt, loader = accelerator.prepare(model, opt, loader)
    for epoch in range(epochs):
        losses = []
        for step, (x, y) in enumerate(loader):
            reg = sum(p.pow(2).sum() for p in model.parameters())
            loss = criterion(model(x), y) + 1e-5 * reg
            opt.zero_grad()
            accelerator.backward(loss)
            opt.step()
            losses.append(loss.item())
        sched.step(sum(losses) / len(losses))
""") == ["LRD013"]


def test_a_loss_from_nn_functional_is_a_per_rank_value() -> None:
    assert codes(_ACCELERATE + """
    model, opt, loader = accelerator.prepare(model, opt, loader)
    for epoch in range(epochs):
        total = 0.0
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            accelerator.backward(loss)
            opt.step()
            total += loss.item()
        sched.step(total)
""") == ["LRD013"]


# -- 3. LRD017: a horizon sized in micro-batches through an attribute or a rebound name ------------

_CONFIGURED = """
import math
import torch
from torch.utils.data import DataLoader
from accelerate import Accelerator
from omegaconf import OmegaConf


def cosine_with_warmup(optimizer, warmup, total):
    def factor(step):
        if step < warmup:
            return (step + 1) / warmup
        return 0.5 * (1 + math.cos(math.pi * min(1.0, (step - warmup) / max(1, total - warmup))))
    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)


def train(config_path, model, dataset):
    config = OmegaConf.load(config_path)
    accelerator = Accelerator(gradient_accumulation_steps=config.training.grad_accum)
    loader = DataLoader(dataset, batch_size=config.training.batch_size, shuffle=True)
    num_steps = config.training.epochs * len(dataset) // config.training.batch_size
"""

_LOOP = """
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.training.lr)
    scheduler = cosine_with_warmup(optimizer, config.training.warmup, HORIZON)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for epoch in range(config.training.epochs):
        for batch in loader:
            with accelerator.accumulate(model):
                loss = model(batch).mean()
                accelerator.backward(loss)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
"""


def _accelerate(sizing: str, horizon: str) -> list[str]:
    return codes(_CONFIGURED + sizing + _LOOP.replace("HORIZON", horizon))


def test_a_horizon_set_into_the_config_when_it_says_auto_is_silent() -> None:
    assert _accelerate("""
    num_steps = num_steps // accelerator.num_processes
    if config.training.decay_until == "auto":
        config.training.decay_until = num_steps
""", "config.training.decay_until") == []


def test_a_horizon_set_on_one_branch_through_a_name_is_silent() -> None:
    assert _accelerate("""
    num_steps = num_steps // accelerator.num_processes
    decay_until = config.training.decay_until
    if decay_until == "auto":
        decay_until = num_steps
""", "decay_until") == []


def test_a_horizon_divided_by_the_accumulation_count_is_still_found() -> None:
    assert _accelerate("""
    num_steps = num_steps // accelerator.num_processes
    if config.training.decay_until == "auto":
        config.training.decay_until = num_steps // config.training.grad_accum
""", "config.training.decay_until") == ["LRD017"]


def test_a_horizon_the_config_alone_gives_is_still_found() -> None:
    assert _accelerate("", "config.training.decay_until") == ["LRD017"]


def test_a_horizon_divided_by_processes_and_accumulation_is_still_found() -> None:
    assert _accelerate("""
    num_steps = num_steps // (accelerator.num_processes * config.training.grad_accum)
    decay_until = config.training.decay_until
    if decay_until == "auto":
        decay_until = num_steps
""", "decay_until") == ["LRD017"]


_PROJECT_CLASS = """
from torch.optim.lr_scheduler import LRScheduler


class WarmupCosine(LRScheduler):
    def __init__(self, optimizer, warmup, until, peak, floor, last_epoch=-1):
        self.warmup, self.until, self.peak, self.floor = warmup, until, peak, floor
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        t = self.last_epoch
        if t < self.warmup:
            lr = self.peak * t / self.warmup
        elif t > self.until:
            lr = self.floor
        else:
            r = (t - self.warmup) / (self.until - self.warmup)
            lr = self.floor + 0.5 * (1 + math.cos(math.pi * r)) * (self.peak - self.floor)
        return [lr for _ in self.optimizer.param_groups]
"""


def _project_scheduler(sizing: str) -> list[str]:
    source = (_CONFIGURED + sizing + _LOOP.replace(
        "cosine_with_warmup(optimizer, config.training.warmup, HORIZON)",
        "WarmupCosine(optimizer, config.training.warmup, config.training.decay_until, "
        "config.training.lr, 0.1 * config.training.lr)"))
    return codes(source.replace("\n\ndef train(", _PROJECT_CLASS + "\n\ndef train(", 1))


def test_the_projects_own_scheduler_sized_in_micro_batches_is_silent() -> None:
    assert _project_scheduler("""
    num_steps = num_steps // accelerator.num_processes
    if config.training.decay_until == "auto":
        config.training.decay_until = num_steps
""") == []


def test_the_projects_own_scheduler_sized_in_updates_is_still_found() -> None:
    assert _project_scheduler("""
    if config.training.decay_until == "auto":
        config.training.decay_until = num_steps // config.training.grad_accum
""") == ["LRD017"]
    assert _project_scheduler("") == ["LRD017"]


# -- a notebook cell holding a lone surrogate is checked, not skipped ------------------------------


def test_a_notebook_with_a_lone_surrogate_is_checked(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    text = notebook(
        'print(f"\udcca results saved")\n',
        """
import torch
from torch import nn
model = nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = torch.optim.lr_scheduler.StepLR(opt, 10)
data = [(torch.randn(8, 4), torch.randn(8, 2))]
for epoch in range(30):
    sched.step()
    for x, y in data:
        opt.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()
""")
    assert "\\udcca" in text
    found = check_project(tmp_path, monkeypatch, {"sandbox.ipynb": text})
    assert project_codes(found) == ["LRD001"]
