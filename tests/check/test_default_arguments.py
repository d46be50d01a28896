"""A parameter the call does not pass holds its default: a warm-up scheduler class whose
``step(self, epoch=None)`` forwards an epoch to the scheduler it wraps only when it is given
one, called as ``sched.step()``, never passes an epoch (no LRD006 inside the wrapper); called
as ``sched.step(epoch)`` it does. A helper called without its ``use_amp=False`` flag never
takes the AMP branch."""

from __future__ import annotations

from tests.check.helpers import codes, findings

WARMUP_WRAPPER = """
    import torch
    from torch.optim.lr_scheduler import CosineAnnealingLR, _LRScheduler


    class Warmup(_LRScheduler):
        def __init__(self, optimizer, warmup_epochs, after):
            self.warmup_epochs = warmup_epochs
            self.after = after
            self.done = False
            super().__init__(optimizer)

        def get_lr(self):
            scale = min(1.0, (self.last_epoch + 1) / self.warmup_epochs)
            return [base * scale for base in self.base_lrs]

        def step(self, epoch=None):
            if self.done:
                if epoch is None:
                    self.after.step(None)
                else:
                    self.after.step(epoch - self.warmup_epochs)
            else:
                self.done = self.last_epoch + 1 >= self.warmup_epochs
                return super().step(epoch)


    model = torch.nn.Linear(4, 2)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    cosine = CosineAnnealingLR(optimizer, T_max=97)
    scheduler = Warmup(optimizer, 3, cosine)
    loader = [torch.randn(8, 4) for _ in range(10)]
    for epoch in range(100):
        for x in loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
        scheduler.{call}
"""


def test_warmup_wrapper_stepped_without_an_epoch_never_forwards_one() -> None:
    assert "LRD006" not in codes(WARMUP_WRAPPER.format(call="step()"))


def test_warmup_wrapper_stepped_with_the_epoch_forwards_it_to_the_cosine() -> None:
    found = findings(WARMUP_WRAPPER.format(call="step(epoch)"))
    assert ("LRD006", 22) in found  # `self.after.step(epoch - self.warmup_epochs)`


AMP_HELPER = """
    import torch
    from torch.optim.lr_scheduler import OneCycleLR


    def train_one_epoch(model, loader, optimizer, scheduler, scaler, use_amp=False):
        for x in loader:
            optimizer.zero_grad()
            with torch.autocast("cuda", enabled=use_amp):
                loss = model(x).sum()
            if use_amp:
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
            else:
                loss.backward()
                optimizer.step()
            scheduler.step()


    model = torch.nn.Linear(4, 2)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    loader = [torch.randn(8, 4) for _ in range(10)]
    scheduler = OneCycleLR(optimizer, max_lr=1e-3, epochs=5, steps_per_epoch=len(loader))
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(5):
        train_one_epoch(model, loader, optimizer, scheduler, scaler{flag})
"""


def test_helper_called_without_its_amp_flag_never_skips_updates() -> None:
    assert "LRD005" not in codes(AMP_HELPER.format(flag=""))


def test_helper_called_with_its_amp_flag_on_steps_the_scheduler_after_skipped_updates() -> None:
    assert "LRD005" in codes(AMP_HELPER.format(flag=", use_amp=True"))
