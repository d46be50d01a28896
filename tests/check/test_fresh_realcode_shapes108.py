"""Shapes seen in the fresh-2026-12zzg106 batch (rcnew106, bench/realcode/README.md): schedule
lengths computed by hand (dataset size, batch size, accumulation, epochs, world size),
iteration-based trainers and schedules resumed mid-run.

Programs written for these tests; no third-party code.

One miss of the batch, fixed: a visual-odometry trainer builds ``OneCycleLR(optimizer, lr,
args.steps)`` and steps it after every batch of ``while 1: for batch in loader:``, a loop that
nothing leaves (no ``break`` of its own, ``return``, ``raise`` or exit call). The steps have
no bound, so OneCycleLR is stepped past ``total_steps`` and raises: LRD010. The rule reads the
loop: a ``while True:`` / ``while 1:`` (or a ``for`` over ``itertools.count()``) with no way
out, a scheduler whose schedule ends (OneCycleLR however sized, a cosine's ``T_max``, a
polynomial's ``total_iters``, a Hugging Face ``num_training_steps``) stepped unconditionally in
the loop's own body. A ``break`` that leaves only an inner loop does not end the endless one.
Left alone: a loop with its own ``break`` (also the for-else ``continue`` / ``break`` idiom),
``return``, ``raise``, ``yield`` or exit call; a step under a condition inside the loop; a
step in a function the loop calls; a scheduler rebuilt in the loop; schedulers with no end
(StepLR, LambdaLR, CyclicLR); a loop inside a ``try`` that catches KeyboardInterrupt (run until
stopped by hand). The tracer reads a ``while`` whose ``try`` restarts an iterator on
StopIteration as a loop over passes around an endless loop over batches it makes up; only
loops written in the file count, so that made-up loop is not an endless one (the first full
run of the tests caught it reported in a ``while step < max_steps:`` trainer).

Probing the family beyond the batch (about 45 programs: OneCycleLR, cosine, polynomial and
Hugging Face horizons from dataset size, batch size, accumulation, epochs and world size,
``drop_last``, per-batch and per-epoch stepping, ``max_iter`` inside epoch loops, schedules
rebuilt or resumed mid-run) found one more miss, fixed: a OneCycleLR sized for E epochs
(``epochs=E`` or ``total_steps=E * len(loader)``) whose state is restored from a checkpoint,
then stepped after every batch of ``for epoch in range(start, start + E)``. The resumed run
makes E more passes although the restored schedule has already spent ``start`` epochs, so it
is stepped past its total and raises (LRD010). The usual ``range(start, E)``, a fresh scheduler
with an offset epoch loop and a loop that may leave early stay silent.
"""

from __future__ import annotations

import textwrap

import pytest

from .helpers import codes, messages

HEAD = '''
import sys
import itertools
import torch
from torch.utils.data import DataLoader

model = torch.nn.Linear(4, 2)
loader = DataLoader(list(range(100)), batch_size=8)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
'''


def _program(body: str) -> str:
    return textwrap.dedent(HEAD) + textwrap.dedent(body)


ENDLESS_BUGS = {
    "onecycle_while_true": '''
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, 1e-3, 1000)
        step = 0
        while True:
            for b in loader:
                opt.step()
                sched.step()
                step += 1
    ''',
    "onecycle_while_one_resumed": '''
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, 1e-3, total_steps=1000)
        step = 0
        ckpt = torch.load("last.pt")
        opt.load_state_dict(ckpt["optimizer"])
        sched.load_state_dict(ckpt["scheduler"])
        step = ckpt["step"]
        while 1:
            for b in loader:
                opt.step()
                sched.step()
                step += 1
                if step % 500 == 0:
                    torch.save({"optimizer": opt.state_dict(),
                                "scheduler": sched.state_dict(), "step": step}, "last.pt")
    ''',
    "inner_break_only": '''
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, 1e-3, 1000)
        step = 0
        while True:
            for b in loader:
                opt.step()
                sched.step()
                step += 1
                if step >= 1000:
                    break
    ''',
    "cosine_while_true": '''
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=5000)
        while True:
            for b in loader:
                opt.step()
                sched.step()
    ''',
    "hf_linear_while_true": '''
        from transformers import get_linear_schedule_with_warmup
        sched = get_linear_schedule_with_warmup(opt, 100, 5000)
        while True:
            for b in loader:
                opt.step()
                sched.step()
    ''',
    "onecycle_epochs_times_steps": '''
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, 1e-3, epochs=10,
                                                    steps_per_epoch=len(loader))
        while True:
            for b in loader:
                opt.step()
                sched.step()
    ''',
    "next_of_iterator": '''
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, 1e-3, total_steps=2000)
        it = iter(loader)
        while True:
            try:
                b = next(it)
            except StopIteration:
                it = iter(loader)
                b = next(it)
            opt.step()
            sched.step()
    ''',
    "itertools_count": '''
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, 1e-3, total_steps=3000)
        for step in itertools.count():
            opt.step()
            sched.step()
    ''',
    "inside_a_function": '''
        def train(total):
            sched = torch.optim.lr_scheduler.OneCycleLR(opt, 1e-3, total)
            while 1:
                for b in loader:
                    opt.step()
                    sched.step()

        train(1000)
    ''',
}


@pytest.mark.parametrize("name", sorted(ENDLESS_BUGS))
def test_ending_schedule_in_an_endless_loop_is_an_overrun(name: str) -> None:
    assert codes(_program(ENDLESS_BUGS[name])).count("LRD010") == 1


def test_message_names_the_horizon_and_the_loop() -> None:
    found = [m for m in messages(_program(ENDLESS_BUGS["onecycle_while_true"]))
             if "nothing leaves" in m]
    assert len(found) == 1
    assert "`1000` steps" in found[0] and "`while True:`" in found[0]


ENDLESS_TWINS = {
    "own_break": '''
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, 1e-3, 1000)
        step = 0
        while True:
            for b in loader:
                opt.step()
                sched.step()
                step += 1
                if step >= 1000:
                    break
            if step >= 1000:
                break
    ''',
    "for_else_continue_break": '''
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, 1e-3, 1000)
        step = 0
        while True:
            for b in loader:
                opt.step()
                sched.step()
                step += 1
                if step >= 1000:
                    break
            else:
                continue
            break
    ''',
    "return_from_function": '''
        def train():
            sched = torch.optim.lr_scheduler.OneCycleLR(opt, 1e-3, 1000)
            step = 0
            while 1:
                for b in loader:
                    opt.step()
                    sched.step()
                    step += 1
                    if step == 1000:
                        return

        train()
    ''',
    "sys_exit": '''
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, 1e-3, 1000)
        step = 0
        while True:
            for b in loader:
                opt.step()
                sched.step()
                step += 1
                if step >= 1000:
                    sys.exit(0)
    ''',
    "raise_when_done": '''
        class Done(Exception):
            pass

        sched = torch.optim.lr_scheduler.OneCycleLR(opt, 1e-3, 1000)
        step = 0
        while True:
            for b in loader:
                opt.step()
                sched.step()
                step += 1
                if step >= 1000:
                    raise Done()
    ''',
    "guarded_step": '''
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, 1e-3, 1000)
        step = 0
        while True:
            for b in loader:
                opt.step()
                if step < 1000:
                    sched.step()
                step += 1
    ''',
    "rebuilt_every_pass": '''
        while True:
            sched = torch.optim.lr_scheduler.OneCycleLR(opt, 1e-3, total_steps=len(loader))
            for b in loader:
                opt.step()
                sched.step()
    ''',
    "steplr_has_no_end": '''
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1000, gamma=0.5)
        while True:
            for b in loader:
                opt.step()
                sched.step()
    ''',
    "cyclic_has_no_end": '''
        sched = torch.optim.lr_scheduler.CyclicLR(opt, 1e-4, 1e-3, step_size_up=200)
        while True:
            for b in loader:
                opt.step()
                sched.step()
    ''',
    "stopped_by_hand": '''
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, 1e-3, 1000)
        try:
            while True:
                for b in loader:
                    opt.step()
                    sched.step()
        except KeyboardInterrupt:
            torch.save(model.state_dict(), "m.pt")
    ''',
    "flag_loop": '''
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, 1e-3, 1000)
        step, keep = 0, True
        while keep:
            for b in loader:
                opt.step()
                sched.step()
                step += 1
                if step >= 1000:
                    keep = False
                    break
    ''',
    "generator": '''
        def batches():
            sched = torch.optim.lr_scheduler.OneCycleLR(opt, 1e-3, 1000)
            while True:
                for b in loader:
                    opt.step()
                    sched.step()
                    yield b

        g = batches()
        for _ in range(1000):
            next(g)
    ''',
    "iterator_with_stop": '''
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, 1e-3, total_steps=2000)
        it = iter(loader)
        step = 0
        while True:
            try:
                b = next(it)
            except StopIteration:
                it = iter(loader)
                b = next(it)
            opt.step()
            sched.step()
            step += 1
            if step == 2000:
                break
    ''',
    "bounded_while_restarting_its_iterator": '''
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=2000)
        it = iter(loader)
        step = 0
        while step < 2000:
            step += 1
            try:
                b = next(it)
            except StopIteration:
                it = iter(loader)
                b = next(it)
            opt.step()
            sched.step()
    ''',
}


@pytest.mark.parametrize("name", sorted(ENDLESS_TWINS))
def test_endless_loop_twins_stay_silent(name: str) -> None:
    assert "LRD010" not in codes(_program(ENDLESS_TWINS[name]))


RESUME_HEAD = """
epochs = 10
ckpt = torch.load("ckpt.pt")
"""

RESUMED = {
    "full_epochs_again_bug": ("""
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, 1e-3, epochs=epochs,
                                                    steps_per_epoch=len(loader))
        opt.load_state_dict(ckpt["opt"])
        sched.load_state_dict(ckpt["sched"])
        start = ckpt["epoch"] + 1
        for epoch in range(start, start + epochs):
            for b in loader:
                opt.step()
                sched.step()
    """, True),
    "total_steps_of_epochs_bug": ("""
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, 1e-3, total_steps=epochs * len(loader))
        sched.load_state_dict(ckpt["sched"])
        for epoch in range(ckpt["epoch"] + 1, ckpt["epoch"] + 1 + epochs):
            for b in loader:
                opt.step()
                sched.step()
    """, True),
    "to_the_end_ok": ("""
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, 1e-3, epochs=epochs,
                                                    steps_per_epoch=len(loader))
        sched.load_state_dict(ckpt["sched"])
        start = ckpt["epoch"] + 1
        for epoch in range(start, epochs):
            for b in loader:
                opt.step()
                sched.step()
    """, False),
    "fresh_with_offset_ok": ("""
        start = ckpt["epoch"] + 1
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, 1e-3, epochs=epochs,
                                                    steps_per_epoch=len(loader))
        for epoch in range(start, start + epochs):
            for b in loader:
                opt.step()
                sched.step()
    """, False),
    "leaves_early_ok": ("""
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, 1e-3, epochs=epochs,
                                                    steps_per_epoch=len(loader))
        sched.load_state_dict(ckpt["sched"])
        start = ckpt["epoch"] + 1
        for epoch in range(start, start + epochs):
            if epoch >= epochs:
                break
            for b in loader:
                opt.step()
                sched.step()
    """, False),
}


@pytest.mark.parametrize("name", sorted(RESUMED))
def test_restored_onecycle_run_for_its_whole_epochs_again(name: str) -> None:
    body, bug = RESUMED[name]
    found = codes(_program(RESUME_HEAD) + textwrap.dedent(body))
    assert ("LRD010" in found) is bug


LIGHTNING_MANUAL_STEP = """
import torch
import lightning as L


class Net(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(4, 2)
        self.automatic_optimization = False

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        sch = self.lr_schedulers()
        loss = self.layer(batch).sum()
        opt.zero_grad()
        self.manual_backward(loss)
        opt.step()
        sch.step()
        return loss

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=1e-3)
        sch = torch.optim.lr_scheduler.OneCycleLR(opt, 1e-3, total_steps=1000)
        return [opt], [sch]


trainer = L.Trainer(max_epochs=5)
trainer.fit(Net(), torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=8))
"""


def test_loops_lightning_stands_at_a_function_are_not_read_as_for_loops() -> None:
    # Lightning's loops are modelled at training_step's `def` (no loop statement in the file):
    # the endless-loop rule asked such a loop for a `for` header and raised
    assert "LRD010" not in codes(LIGHTNING_MANUAL_STEP)
