"""A scheduler stepped only after a real update under float16 AMP, in the spellings real code
uses to detect GradScaler's skipped steps (the scale before and after `update()`, compared
inline or through a named flag, the private `_scale`, Accelerate's
`optimizer_step_was_skipped`): silent; the same step without the guard is LRD005."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

V: dict[str, tuple[list[str], str]] = {}
_S = '''
import torch

def train(model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3, total_steps=epochs * len(loader))
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            with torch.autocast("cuda", dtype=torch.float16):
                loss = torch.nn.functional.mse_loss(model(x), y)
            scaler.scale(loss).backward()
{body}
'''
B = {
    "scale_before_after": '''            scale_before = scaler.get_scale()
            scaler.step(optimizer)
            scaler.update()
            skip_lr_sched = scale_before > scaler.get_scale()
            if not skip_lr_sched:
                scheduler.step()''',
    "optimizer_was_run": '''            scale = scaler.get_scale()
            scaler.step(optimizer)
            scaler.update()
            optimizer_was_run = scale <= scaler.get_scale()
            if optimizer_was_run:
                scheduler.step()''',
    "inline_compare": '''            old_scale = scaler.get_scale()
            scaler.step(optimizer)
            scaler.update()
            if scaler.get_scale() >= old_scale:
                scheduler.step()''',
    "private_scale_attr": '''            before = scaler._scale.item() if scaler._scale is not None else None
            scaler.step(optimizer)
            scaler.update()
            if before is None or scaler._scale.item() >= before:
                scheduler.step()''',
}
for n, b in B.items():
    V[f"lrd005_guarded_by_{n}_correct"] = ([], _S.format(body=b))
V["lrd005_unguarded_buggy"] = (["LRD005"], _S.format(body='''            scaler.step(optimizer)
            scaler.update()
            scheduler.step()'''))
V["accelerate_optimizer_step_was_skipped_correct"] = ([], '''
import torch
from accelerate import Accelerator

def train(model, loader, epochs):
    accelerator = Accelerator(mixed_precision="fp16")
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3, total_steps=epochs * len(loader))
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            accelerator.backward(loss)
            optimizer.step()
            if not accelerator.optimizer_step_was_skipped:
                scheduler.step()
''')


@pytest.mark.parametrize("situation", sorted(n for n in V if n.endswith("_correct")))
def test_scheduler_stepped_only_after_a_real_update_is_silent(situation: str) -> None:
    expected, source = V[situation]
    assert codes(source) == expected


def test_scheduler_stepped_after_a_possibly_skipped_update_is_lrd005() -> None:
    expected, source = V["lrd005_unguarded_buggy"]
    assert codes(source) == expected
