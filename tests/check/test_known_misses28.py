"""A GradScaler switched by comparing a fixed precision setting (rcnew49, batch fresh-2026-12yc).

Programs written for these tests; no third-party code.

Language-model scripts in the nanoGPT line pick the training precision with a plain local
name bound once to a literal (``dtype = "float16"``) and build the scaler with
``GradScaler(enabled=(dtype == "float16"))``. The comparison is decided by that literal: with
``"float16"`` the scaler is on in every run of the file as written, so a resumable checkpoint
without its state (LRD007) and a per-batch scheduler stepped whatever the scaler skipped
(LRD005) are reported as for ``GradScaler()``; with ``"bfloat16"`` it never scales and nothing
is said. A name that may hold another value (picked from the hardware, or rebound) stays
unknown and silent, as before.
"""

from __future__ import annotations

import pytest

from .helpers import codes, messages

RESUMABLE = """
import os
import torch

dtype = {dtype}
out_dir = "out"
init_from = "resume"

model = torch.nn.Linear(16, 16).cuda()
scaler = torch.amp.GradScaler("cuda", enabled={enabled})
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4)
iter_num = 0
if init_from == "resume":
    checkpoint = torch.load(os.path.join(out_dir, "ckpt.pt"))
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    iter_num = checkpoint["iter_num"]

while iter_num < 5000:
    for group in optimizer.param_groups:
        group["lr"] = 5e-4 * min(1.0, (iter_num + 1) / 200)
    if iter_num > 0 and iter_num % 500 == 0:
        state = {{"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                 "iter_num": iter_num}}
        torch.save(state, os.path.join(out_dir, "ckpt.pt"))
    x = torch.randn(8, 16).cuda()
    with torch.autocast("cuda", dtype=torch.float16, enabled={enabled}):
        loss = model(x).pow(2).mean()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    iter_num += 1
"""

PER_BATCH_SCHEDULE = """
import torch


def train(model, loader, epochs):
    precision = {precision}
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=0.1, total_steps=epochs * len(loader))
    scaler = torch.amp.GradScaler("cuda", enabled={enabled})
    for epoch in range(epochs):
        for inputs, targets in loader:
            optimizer.zero_grad()
            with torch.autocast("cuda", enabled={enabled}):
                loss = torch.nn.functional.cross_entropy(model(inputs), targets)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            scheduler.step()
"""


@pytest.mark.parametrize("enabled", ['(dtype == "float16")', 'dtype != "bfloat16"',
                                     'dtype in ("float16", "fp16")'])
def test_scaler_on_because_the_fixed_dtype_is_float16_must_be_checkpointed(enabled: str) -> None:
    source = RESUMABLE.format(dtype='"float16"', enabled=enabled)
    assert codes(source) == ["LRD007"]
    assert "GradScaler" in messages(source)[0]


@pytest.mark.parametrize("enabled", ['(dtype == "float16")', 'dtype != "bfloat16"',
                                     'dtype in ("float16", "fp16")'])
def test_scaler_off_because_the_fixed_dtype_is_bfloat16_needs_no_state(enabled: str) -> None:
    assert codes(RESUMABLE.format(dtype='"bfloat16"', enabled=enabled)) == []


def test_dtype_picked_from_the_hardware_leaves_the_scaler_unknown() -> None:
    # float16 only on GPUs without bfloat16: the file does not say which runs
    dtype = '"bfloat16" if torch.cuda.is_bf16_supported() else "float16"'
    assert codes(RESUMABLE.format(dtype=dtype, enabled='(dtype == "float16")')) == []


@pytest.mark.parametrize("enabled", ["precision == 16", "precision in (16, 32)"])
def test_per_batch_schedule_under_a_scaler_on_by_fixed_precision_is_reported(
        enabled: str) -> None:
    source = PER_BATCH_SCHEDULE.format(precision="16", enabled=enabled)
    assert codes(source) == ["LRD005"]
    assert not messages(source)[0].startswith("When")  # always on: no flag to name


@pytest.mark.parametrize("enabled", ["precision == 16", "precision in (16, 32)"])
def test_per_batch_schedule_under_a_scaler_off_by_fixed_precision_stays_silent(
        enabled: str) -> None:
    assert codes(PER_BATCH_SCHEDULE.format(precision="64", enabled=enabled)) == []
