"""Shapes met in the second fresh real-code batch of issue 7 (bench/realcode, batch
"fresh-2026-12b", dev half): each test is the general shape in our own words, next to the
control that must still be reported (or stay silent)."""

from __future__ import annotations

from tests.check.helpers import codes, messages

# -- Accelerate: save_state() writes what was prepared or registered, nothing else ----------

_ACCELERATE = """
import torch
from accelerate import Accelerator


def fit(args, net, data):
    acc = Accelerator()
    opt = torch.optim.AdamW(net.parameters(), lr=3e-4)
    warm = torch.optim.lr_scheduler.LambdaLR(opt, lambda it: min(1.0, (it + 1) / 2000))
    {prepare}
    if args.resume_dir:
        acc.load_state(args.resume_dir)
    for epoch in range(args.epochs):
        for batch in data:
            loss = net(batch)
            acc.backward(loss)
            opt.step()
            warm.step()
            opt.zero_grad()
        {save}
"""


def _accelerate(prepare: str, save: str = 'acc.save_state(f"run/ep{epoch}")') -> str:
    return _ACCELERATE.replace("{prepare}", prepare).replace("{save}", save)


def test_save_state_without_the_scheduler_is_lrd007() -> None:
    source = _accelerate("net, opt, data = acc.prepare(net, opt, data)")
    assert codes(source) == ["LRD007"]
    assert "register_for_checkpointing" in messages(source)[0]


def test_save_state_with_the_scheduler_prepared_is_silent() -> None:
    assert codes(_accelerate("net, opt, data, warm = acc.prepare(net, opt, data, warm)")) == []


def test_save_state_with_the_scheduler_registered_is_silent() -> None:
    prepare = "net, opt, data = acc.prepare(net, opt, data)\n    acc.register_for_checkpointing(warm)"
    assert codes(_accelerate(prepare)) == []


def test_save_state_completed_by_a_scheduler_file_is_silent() -> None:
    save = ('acc.save_state(f"run/ep{epoch}")\n'
            '        torch.save(warm.state_dict(), f"run/ep{epoch}/sched.pt")')
    assert codes(_accelerate("net, opt, data = acc.prepare(net, opt, data)", save)) == []


def test_save_state_of_an_object_that_prepared_nothing_is_not_a_checkpoint() -> None:
    # a trainer's own `save_state()` (no `prepare()` on it): nothing tells what it writes
    assert codes(_accelerate("net, opt, data = prepare_all(net, opt, data)",
                             "trainer.save_state()")) == []


def test_save_state_with_a_plateau_scheduler_left_out_is_silent() -> None:
    source = _accelerate("net, opt, data = acc.prepare(net, opt, data)").replace(
        "torch.optim.lr_scheduler.LambdaLR(opt, lambda it: min(1.0, (it + 1) / 2000))",
        "torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=3)",
    ).replace("warm.step()", "warm.step(loss.item())")
    assert "LRD007" not in codes(source)


# -- a warm-up class that hands over to a cosine it wraps -----------------------------------

_WRAPPER = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR, LRScheduler


class RampThenDecay(LRScheduler):
    def __init__(self, optimizer, ramp, then, last_epoch=-1):
        self.ramp = ramp
        self.then = then
        self.handed_over = False
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch >= self.ramp:
            self.handed_over = True
            return self.then.get_lr()
        return [lr * (self.last_epoch + 1) / self.ramp for lr in self.base_lrs]

    def step(self, epoch=None):
        if not self.handed_over:
            return super().step(epoch)
        if epoch is None:
            self.then.step()
        else:
            self.then.step(epoch - self.ramp)
        self._last_lr = self.then.get_last_lr()


class RampCosine(RampThenDecay):
    def __init__(self, optimizer, total, ramp=0, floor=0.0, last_epoch=-1):
        decay = CosineAnnealingLR(optimizer, total - ramp, eta_min=floor, last_epoch=last_epoch)
        super().__init__(optimizer, ramp, decay, last_epoch=last_epoch)
"""

_DRIVER = """

def fit(net, data, epochs):
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = RampCosine(opt, epochs * len(data), ramp=100)
    for epoch in range(epochs):
        for batch in data:
            net(batch).backward()
            opt.step()
            opt.zero_grad()
            sched.step({arg})
"""


def test_wrapper_forwarding_an_optional_epoch_is_no_lrd006_or_lrd015() -> None:
    # the module of a project that only defines its schedulers
    assert codes(_WRAPPER) == []


def test_wrapper_stepped_plainly_by_the_loop_is_silent() -> None:
    assert codes(_WRAPPER + _DRIVER.replace("{arg}", "")) == []


def test_wrapper_handed_an_epoch_by_the_loop_still_reports_lrd006() -> None:
    assert "LRD006" in codes(_WRAPPER + _DRIVER.replace("{arg}", "epoch"))


def test_get_lr_for_logging_in_a_wrapper_step_is_still_lrd015() -> None:
    logged = _WRAPPER.replace("self._last_lr = self.then.get_last_lr()",
                              "self._last_lr = self.then.get_lr()")
    assert codes(logged) == ["LRD015"]


def test_plain_step_with_an_epoch_is_still_lrd006() -> None:
    assert codes("""
import torch

def fit(net, data, epochs):
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs)
    for epoch in range(epochs):
        for batch in data:
            net(batch).backward()
            opt.step()
            opt.zero_grad()
        sched.step(epoch)
""") == ["LRD006"]


# -- an epoch-sized scheduler stepped with every update on one path of a setting ------------

_PATHS = """
import torch

def fit(cfg, net, train_loader, accum):
    opt = torch.optim.AdamW(net.parameters(), lr=1e-4)
    sched = {sched}
    scaler = torch.amp.GradScaler("cuda") if cfg.fp16 else None
    for epoch in range(cfg.epochs):
        for step, batch in enumerate(train_loader):
            loss = net(batch) / accum
            if cfg.fp16:
                scaler.scale(loss).backward()
                if (step + 1) % accum == 0:
                    scaler.step(opt)
                    scaler.update()
                    opt.zero_grad()
            else:
                loss.backward()
                if (step + 1) % accum == 0 or step == len(train_loader) - 1:
                    opt.step()
                    {step}
                    opt.zero_grad()
"""

_STEPLR = "torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.85)"
_LINEAR = ("torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 1 - s / (cfg.epochs * len(train_loader) "
           "// accum))")


def test_epoch_scheduler_stepped_with_every_update_on_one_path_is_lrd002() -> None:
    source = _PATHS.replace("{sched}", _STEPLR).replace("{step}", "sched.step()")
    assert codes(source) == ["LRD002"]


def test_batch_sized_schedule_on_that_path_is_silent() -> None:
    source = _PATHS.replace("{sched}", _LINEAR).replace("{step}", "sched.step()")
    assert codes(source) == []


def test_a_guard_of_the_steps_own_is_still_a_choice() -> None:
    # `if cfg.decay_every_update:` around the step alone: the author chose when it steps
    source = _PATHS.replace("{sched}", _STEPLR).replace(
        "{step}", "if cfg.decay_every_update:\n                        sched.step()")
    assert codes(source) == []


# -- a lost ExponentialLR loses nothing the optimizer state does not hold -------------------

_RESUMED = """
import torch

def fit(args, net, loader):
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    sched = {sched}
    start = 0
    if args.resume:
        state = torch.load(args.resume)
        net.load_state_dict(state["net"])
        opt.load_state_dict(state["opt"])
        start = state["epoch"] + 1
    for epoch in range(start, args.epochs):
        for x, y in loader:
            torch.nn.functional.mse_loss(net(x), y).backward()
            opt.step()
            opt.zero_grad()
        sched.step()
        torch.save({"net": net.state_dict(), "opt": opt.state_dict(), "epoch": epoch}, "last.pt")
"""


def test_exponential_decay_goes_on_from_the_restored_optimizer_lr() -> None:
    source = _RESUMED.replace("{sched}", "torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.99)")
    assert "LRD007" not in codes(source)


def test_a_step_decay_left_out_of_the_checkpoint_is_still_lrd007() -> None:
    source = _RESUMED.replace("{sched}", "torch.optim.lr_scheduler.StepLR(opt, step_size=30)")
    assert codes(source).count("LRD007") == 2


def test_save_state_with_a_registered_holder_of_the_scheduler_is_silent() -> None:
    # `register_for_checkpointing(state)` with an object of the project's own class that keeps
    # the scheduler and has state_dict()/load_state_dict(): what it saves is not shown here
    prepare = ("net, opt, data = acc.prepare(net, opt, data)\n"
               "    acc.register_for_checkpointing(Holder(warm))")
    source = _accelerate(prepare) + """

class Holder:
    def __init__(self, sched):
        self.sched = sched

    def state_dict(self):
        return {"sched": self.sched.state_dict()}

    def load_state_dict(self, state):
        self.sched.load_state_dict(state["sched"])
"""
    assert codes(source) == []
