"""fphunt61: false alarms found in recent research code (diffusion / flow-matching and GRPO
trainers, QLoRA and FSDP fine-tuning, Gaussian-splatting, speech and time-series code), each
fixed by semantics. Every false shape, written here in our own words, must be silent; a buggy
twin must still be reported.

1. A test class with one method that builds a torch optimizer and a scheduler as its own
   locals and steps the scheduler once to read ``get_last_lr()`` (no training), and another
   method that trains an optimizer built by a project builder lrdoctor cannot follow
   (``opt = make_optimizer(model)``: an optimizer known only by its name). The methods are
   traced as calls of one instance, and an optimizer known only by its name may be any
   optimizer, so the first method's step looked like a step "before the training loop" of
   the second: LRD001. A function's locals die with its call: an optimizer and a scheduler
   bound to plain local names of one call, never handed out (not returned, yielded, stored
   in an attribute or a container, or passed to any call but the scheduler's builder), cannot
   be the ones another call, neither calling the other, steps. Still LRD001: the step before
   a training loop in the same method, and a scheduler kept in ``self`` and stepped before
   another method's loop.

2. (a miss found by probing) A sharded trainer saves ``FSDP.optim_state_dict(model, optim)``
   (or ``FullyShardedDataParallel.full_optim_state_dict``, or
   ``torch.distributed.checkpoint.state_dict.get_optimizer_state_dict(model, optim)`` bound
   to a name first) into a resumable checkpoint beside the model and the step, and never the
   LambdaLR warm-up that drives ``optim``: on resume the warm-up starts over. lrdoctor took
   the call for an unknown library's value, so the checkpoint held no optimizer state and
   LRD007 was silent. These functions return the state dict of the optimizer handed to them
   second; the checkpoint now holds that optimizer's state. The same checkpoint with
   ``sched.state_dict()`` is silent.

3. (a probe of a spelling seen in a DPO trainer: ``ReduceLROnPlateau(mode='max')`` stepped
   with ``-val_losses``) A plateau in mode 'max' handed the negated validation loss
   (``-val_loss``, ``-1 * val_loss``, directly or through a helper's parameter), or in mode
   'min' handed an error rate ``1.0 - val_acc``: LRD004 said the mode contradicted the
   metric, reading the words of the name inside the expression. ``-loss`` rises as the loss
   falls, and ``1 - acc`` falls as the accuracy rises: the expression orders values the other
   way round from the name in it, so the modes are right. lrdoctor now reverses what the
   words say when the value handed on is negated, subtracted from a number, or multiplied or
   divided by a negative number (through ``float()``, ``.item()``, positive scales and
   shifts; twice reversed is not reversed). Still LRD004: ``1.0 - val_acc`` with mode
   'max', ``-(1.0 - val_mae)`` with mode 'max', and a plain loss with mode 'max'.
"""

from __future__ import annotations

from .helpers import codes, findings

# {first}: the body of the method that steps the scheduler once; {opt}: how the second
# method builds its optimizer
_TWO_METHODS = """
import torch
from torch import nn

from elsewhere import make_optimizer


class TestSchedules:
    def test_reads_the_last_lr(self):
        model = nn.Linear(4, 4)
{first}

    def test_trains(self):
        model = nn.Linear(4, 4)
        opt = {opt}
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=5)
        x = torch.randn(8, 4)
        for _ in range(10):
            opt.zero_grad()
            model(x).sum().backward()
            opt.step()
            sched.step()
"""

_READS_ONLY = """\
        opt = torch.optim.SGD(model.parameters(), lr=0.05)
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=5)
        sched.step()
        assert sched.get_last_lr()[0] == 0.05"""


def two_methods(first: str = _READS_ONLY, opt: str = "make_optimizer(model)") -> str:
    return _TWO_METHODS.format(first=first, opt=opt)


def test_local_scheduler_stepped_once_beside_another_methods_training_is_silent() -> None:
    assert codes(two_methods()) == []


def test_local_scheduler_from_a_builder_beside_another_methods_training_is_silent() -> None:
    first = """\
        opt = torch.optim.SGD(model.parameters(), lr=0.05)
        sched = build_scheduler(opt, "flat")
        sched.step()
        assert sched.get_last_lr()[0] == 0.05"""
    source = two_methods(first) + """

def build_scheduler(optimizer, name):
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0 if name else 0.5)
"""
    assert codes(source) == []


def test_same_shape_in_two_plain_functions_is_silent() -> None:
    source = """
import torch
from torch import nn

from elsewhere import make_optimizer


def read_last_lr():
    model = nn.Linear(4, 4)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=5)
    sched.step()
    return sched.get_last_lr()


def train():
    model = nn.Linear(4, 4)
    opt = make_optimizer(model)
    x = torch.randn(8, 4)
    for _ in range(10):
        opt.zero_grad()
        model(x).sum().backward()
        opt.step()
"""
    assert codes(source) == []


def test_step_before_the_loop_of_the_same_method_is_still_found() -> None:
    first = """\
        opt = torch.optim.SGD(model.parameters(), lr=0.05)
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=5)
        sched.step()
        x = torch.randn(8, 4)
        for _ in range(10):
            opt.zero_grad()
            model(x).sum().backward()
            opt.step()"""
    assert findings(two_methods(first)) == [("LRD001", 13)]


def test_scheduler_kept_on_self_and_stepped_before_another_methods_loop_is_still_found() -> None:
    source = """
import torch
from torch import nn


class Runner:
    def setup(self):
        self.model = nn.Linear(4, 4)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.05)
        self.sched = torch.optim.lr_scheduler.StepLR(self.opt, step_size=5)
        self.sched.step()

    def fit(self):
        opt = self.opt
        x = torch.randn(8, 4)
        for _ in range(10):
            opt.zero_grad()
            self.model(x).sum().backward()
            opt.step()
            self.sched.step()
"""
    assert findings(source) == [("LRD001", 11)]


def test_optimizer_handed_out_by_the_stepping_method_is_still_found() -> None:
    # the first method returns its optimizer: the other call may be stepping that object
    first = """\
        opt = torch.optim.SGD(model.parameters(), lr=0.05)
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=5)
        sched.step()
        return opt"""
    assert codes(two_methods(first)) == ["LRD001"]


# {save}: what the checkpoint holds besides the model and the optimizer; {read}: how the
# optimizer's state is taken
_SHARDED = """
import torch
import torch.distributed as dist
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, StateDictType
from torch.distributed.checkpoint.state_dict import get_optimizer_state_dict

dist.init_process_group("nccl")
model = FSDP(torch.nn.Linear(32, 32).cuda())
optim = torch.optim.AdamW(model.parameters(), lr=1e-4)
sched = torch.optim.lr_scheduler.LambdaLR(optim, lambda s: min(1.0, (s + 1) / 500))
for step in range(20000):
    loss = model(torch.randn(4, 32, device="cuda")).pow(2).mean()
    loss.backward()
    optim.step()
    sched.step()
    optim.zero_grad(set_to_none=True)
    if step % 2000 == 0:
        with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT):
            weights = model.state_dict()
            osd = {read}
        if dist.get_rank() == 0:
            torch.save({{"weights": weights, "opt": osd, "step": step{save}}}, "last.pt")
"""


def sharded(read: str = "FSDP.optim_state_dict(model, optim)", save: str = "") -> str:
    return _SHARDED.format(read=read, save=save)


def test_fsdp_optimizer_state_saved_without_the_schedule_is_found() -> None:
    assert findings(sharded()) == [("LRD007", 22)]


def test_full_optimizer_state_spelled_in_full_without_the_schedule_is_found() -> None:
    source = sharded("FSDP.full_optim_state_dict(model, optim)").replace(
        "as FSDP,", "as FSDP, FullyShardedDataParallel,")
    assert codes(source.replace("FSDP.full_optim", "FullyShardedDataParallel.full_optim")) \
        == ["LRD007"]


def test_checkpoint_api_optimizer_state_without_the_schedule_is_found() -> None:
    assert codes(sharded("get_optimizer_state_dict(model, optim)")) == ["LRD007"]


def test_fsdp_optimizer_state_saved_with_the_schedule_is_silent() -> None:
    assert codes(sharded(save=', "sched": sched.state_dict()')) == []


# {mode}: the plateau's mode; {handed}: what the epoch loop hands to the step
_PLATEAU = """
import torch

model = torch.nn.Linear(8, 1)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="{mode}", factor=0.5, patience=4)


def report(score):
    plateau.step(score)


for epoch in range(100):
    for _ in range(20):
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(torch.randn(16, 8)), torch.randn(16, 1)).backward()
        opt.step()
    with torch.no_grad():
        out = model(torch.randn(64, 8))
        val_loss = torch.nn.functional.mse_loss(out, torch.randn(64, 1)).item()
        val_acc = (out > 0).float().mean().item()
    {handed}
"""


def plateau(mode: str, handed: str) -> str:
    return _PLATEAU.format(mode=mode, handed=handed)


def test_negated_validation_loss_with_mode_max_is_silent() -> None:
    assert codes(plateau("max", "plateau.step(-val_loss)")) == []


def test_loss_times_minus_one_through_a_helper_with_mode_max_is_silent() -> None:
    assert codes(plateau("max", "report(-1 * val_loss)")) == []


def test_error_rate_with_mode_min_is_silent() -> None:
    assert codes(plateau("min", "plateau.step(1.0 - val_acc)")) == []


def test_negated_float_of_the_loss_with_mode_max_is_silent() -> None:
    assert codes(plateau("max", "plateau.step(-float(val_loss))")) == []


def test_error_rate_with_mode_max_is_still_found() -> None:
    assert findings(plateau("max", "plateau.step(1.0 - val_acc)")) == [("LRD004", 22)]


def test_twice_reversed_loss_with_mode_max_is_still_found() -> None:
    assert codes(plateau("max", "report(-(1.0 - val_loss))")) == ["LRD004"]


def test_plain_loss_with_mode_max_is_still_found() -> None:
    assert codes(plateau("max", "plateau.step(val_loss)")) == ["LRD004"]
