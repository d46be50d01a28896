"""Branches that cannot both run: the same flag tested by two separate ``if``s, a warm-up that
hands over to the scheduler, TPU's optimizer step."""

from __future__ import annotations

from tests.check.helpers import codes

_AMP_FLAG = """
import torch
from torch.optim.lr_scheduler import OneCycleLR

def train(model, loader, args):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = OneCycleLR(optimizer, max_lr=1.0, total_steps=args.epochs * len(loader))
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(args.epochs):
        for x in loader:
            loss = model(x).sum()
            if args.amp:
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
{between}
            if not args.amp:
                loss.backward()
                optimizer.step()
                scheduler.step()
"""


def test_scheduler_stepped_only_when_the_amp_flag_is_off_is_not_stepping_on_skips() -> None:
    assert codes(_AMP_FLAG.format(between="")) == []


def test_flag_reassigned_between_the_two_ifs_is_not_the_same_flag() -> None:
    # `args.amp` may have changed: both branches can run in one iteration
    src = _AMP_FLAG.format(between="            args.amp = not args.amp")
    assert codes(src) == ["LRD005"]


def test_scheduler_stepped_in_the_amp_branch_after_a_scaler_step_is_reported() -> None:
    src = _AMP_FLAG.replace(
        "                scaler.update()\n",
        "                scaler.update()\n                scheduler.step()\n",
    ).format(between="")
    assert codes(src) == ["LRD005"]


_WARMUP = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR

def train(model, loader, epochs, warmup_epochs, base_lr):
    optimizer = torch.optim.SGD(model.parameters(), lr=base_lr)
    scheduler = CosineAnnealingLR(optimizer, T_max=epochs - warmup_epochs)
    for epoch in range(epochs):
        if epoch < warmup_epochs:
            for group in optimizer.param_groups:
                group["lr"] = base_lr * (epoch + 1) / warmup_epochs
        for x in loader:
            model(x).sum().backward()
            optimizer.step()
{step}
"""


def test_manual_warmup_handing_over_to_the_scheduler_after_warmup_is_not_lrd008() -> None:
    src = _WARMUP.format(step="        if epoch >= warmup_epochs:\n            scheduler.step()")
    assert codes(src) == []


def test_manual_warmup_in_the_if_and_scheduler_step_in_the_else_is_not_lrd008() -> None:
    src = """
    import torch
    from torch.optim.lr_scheduler import StepLR

    def train(model, loader, epochs, warmup, base_lr):
        optimizer = torch.optim.SGD(model.parameters(), lr=base_lr)
        scheduler = StepLR(optimizer, step_size=30)
        for epoch in range(epochs):
            for x in loader:
                model(x).sum().backward()
                optimizer.step()
            if epoch < warmup:
                for group in optimizer.param_groups:
                    group["lr"] = base_lr * (epoch + 2) / warmup
            else:
                scheduler.step()
    """
    assert codes(src) == []


def test_manual_warmup_while_the_scheduler_steps_every_epoch_is_lrd008() -> None:
    assert codes(_WARMUP.format(step="        scheduler.step()")) == ["LRD008"]


def test_warmup_counter_reassigned_between_the_tests_is_still_lrd008() -> None:
    src = _WARMUP.format(
        step="        warmup_epochs = warmup_epochs - 1\n"
             "        if epoch >= warmup_epochs:\n            scheduler.step()"
    )
    assert codes(src) == ["LRD008"]


_XLA = """
import torch
import torch_xla.core.xla_model as xm
from torch.optim.lr_scheduler import StepLR

def train(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = StepLR(optimizer, step_size=30)
    for epoch in range(epochs):
{before}
        for x in loader:
            model(x).sum().backward()
            xm.optimizer_step(optimizer)
{after}
"""


def test_scheduler_stepped_before_the_tpu_optimizer_step_is_lrd001() -> None:
    assert codes(_XLA.format(before="        scheduler.step()", after="")) == ["LRD001"]


def test_scheduler_stepped_after_the_tpu_optimizer_steps_is_correct() -> None:
    assert codes(_XLA.format(before="", after="        scheduler.step()")) == []


_SCALER_OR_NOT = """
import torch

def backward(loss, scaler):
    if scaler is not None:
        scaler.scale(loss).backward()
    else:
        loss.backward()

def train(model, loader, args):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cuda") if args.precision == "amp" else None
    for x in loader:
        loss = model(x).sum()
        backward(loss, scaler)
{step}
"""


def test_scaled_backward_in_a_helper_and_plain_step_when_there_is_no_scaler_is_correct() -> None:
    # the helper scales only `if scaler is not None`; the caller steps directly only `else`
    src = _SCALER_OR_NOT.format(step=(
        "        if scaler is not None:\n"
        "            scaler.step(optimizer)\n"
        "            scaler.update()\n"
        "        else:\n"
        "            optimizer.step()"
    ))
    assert codes(src) == []


def test_scaled_backward_in_a_helper_then_a_plain_step_is_lrd109() -> None:
    assert codes(_SCALER_OR_NOT.format(step="        optimizer.step()")) == ["LRD109"]


_STEP_MODE = """
import torch

def train_epoch(model, loader, optimizer, lr_scheduler, epoch, step):
    for batch in loader:
        optimizer.zero_grad()
        model(batch).backward()
        optimizer.step()
    if step == "epoch_arg":
        lr_scheduler.step(epoch)
    else:
        lr_scheduler.step()

def main(model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    lr_scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    step = {mode}
    for epoch in range(epochs):
        train_epoch(model, loader, optimizer, lr_scheduler, epoch, step)
"""


def test_branch_on_a_mode_that_is_bound_to_another_literal_never_runs() -> None:
    # `step = "plain"` is bound once: `lr_scheduler.step(epoch)` never runs
    assert codes(_STEP_MODE.format(mode='"plain"')) == []


def test_branch_on_a_mode_bound_to_its_literal_runs() -> None:
    assert codes(_STEP_MODE.format(mode='"epoch_arg"')) == ["LRD006"]


def test_mode_rebound_elsewhere_is_not_assumed() -> None:
    src = _STEP_MODE.format(mode='"plain"').replace(
        "    for epoch in range(epochs):\n",
        "    if epochs > 100:\n        step = \"epoch_arg\"\n    for epoch in range(epochs):\n",
    )
    assert codes(src) == ["LRD006"]


def test_keyword_literal_picks_the_metric_branch_in_the_helper() -> None:
    src = """
    import torch

    def train_model(model, loader, optimizer, scheduler, scheduler_on, epochs):
        losses, accs = [], []
        for epoch in range(epochs):
            for batch in loader:
                loss = model(batch)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
            accs.append(model.accuracy())
            if scheduler_on == "valid_acc":
                scheduler.step(accs[-1])
            elif scheduler_on == "minibatch_loss":
                scheduler.step(losses[-1])

    def main(model, loader, epochs):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="max")
        train_model(model, loader, optimizer, scheduler, scheduler_on="valid_acc",
                    epochs=epochs)
    """
    assert codes(src) == []
